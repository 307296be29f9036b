"""The store: one database and the repositories over it, built once per process by the services."""

from __future__ import annotations

from dataclasses import dataclass

from app.config import Settings
from app.store import revisions
from app.store.conversations import Conversations
from app.store.database import Database
from app.store.eval_cases import EvalCases
from app.store.feedback import Votes
from app.store.pending import PendingQuestions
from app.store.questions import QuestionLog
from app.store.runs import RUN_KEEP_SECONDS, AnswerRuns
from app.store.spaces import Spaces
from app.store.tokens import AccessTokens


@dataclass(frozen=True)
class Purged:
    """What a retention purge deleted."""

    conversations: int
    questions: int
    pending: int
    runs: int = 0


class Store:
    """Every repository over one database, with its health and its maintenance."""

    def __init__(self, database_url: str, store_conversations: bool = True, retention_days: int = 90):
        self.db = Database(database_url)
        self.store_conversations = store_conversations
        self.retention_days = retention_days
        self.conversations = Conversations(self.db)
        self.pending = PendingQuestions(self.db)
        self.votes = Votes(self.db)
        self.questions = QuestionLog(self.db)
        self.eval_cases = EvalCases(self.db)
        self.runs = AnswerRuns(self.db)
        self.tokens = AccessTokens(self.db)
        self.spaces = Spaces(self.db)
        self._current = False

    @classmethod
    def from_settings(cls, settings: Settings) -> Store:
        """The store that DATABASE_URL, STORE_CONVERSATIONS and CONVERSATION_RETENTION_DAYS describe."""
        return cls(
            settings.resolved_database_url,
            store_conversations=settings.store_conversations,
            retention_days=settings.conversation_retention_days,
        )

    def ping(self) -> bool:
        """True when the database answers (for /readyz)."""
        return self.db.ping()

    def upgrade(self) -> None:
        """Migrate the schema to the newest revision."""
        from app.store import migrate  # Alembic loads only to migrate

        migrate.upgrade(self.db)

    def is_current(self) -> bool:
        """True when the schema is at the newest revision."""
        return revisions.is_current(self.db)

    def schema_current(self) -> bool:
        """is_current, asked again only until it holds (a schema never moves back under a running app)."""
        if not self._current:
            self._current = self.is_current()
        return self._current

    def prepared(self) -> Store:
        """This store with its schema seen to at start (see app.store.schema)."""
        from app.store import schema

        schema.prepare(self)
        return self

    def purge_expired(self) -> Purged:
        """Delete what the retention period has passed, and questions no stream claimed."""
        return Purged(
            conversations=self.conversations.purge(self.retention_days),
            questions=self.questions.purge(self.retention_days),
            # A question's row maps its exchange to the answer run a reloaded page follows: kept as long.
            pending=self.pending.purge(RUN_KEEP_SECONDS),
            runs=self.runs.purge(RUN_KEEP_SECONDS),
        )

    def close(self) -> None:
        """Close the database's pooled connections."""
        self.db.dispose()
