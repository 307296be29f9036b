"""Settings: one model read from the environment (and .env), then test overrides."""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from pathlib import Path
from typing import Any, Literal

from limits import parse_many
from limits.storage import SCHEMES as LIMIT_STORAGE_SCHEMES
from pydantic import Field, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.library.state import StatePaths
from app.rules import MAX_PASSAGES

# A current Claude Sonnet id; older ids draw deprecation warnings from the SDK.
DEFAULT_MODEL = "claude-sonnet-5-5"
# Names another dotenv file to read instead of `.env`; set but empty, no dotenv file is read (tests do this).
ENV_FILE_VARIABLE = "COURSE_ASSISTANT_ENV_FILE"
DATABASE_SCHEMES = ("sqlite:///", "postgresql://", "postgres://", "postgresql+psycopg://")


class ConfigError(SystemExit):
    """A missing or invalid setting, reported in one line naming the variable."""


class Settings(BaseSettings):
    """Every knob of the app, each one an environment variable of the same name."""

    model_config = SettingsConfigDict(
        env_file=".env",
        env_file_encoding="utf-8",
        env_ignore_empty=True,
        extra="ignore",
        case_sensitive=False,
    )

    secret_key: str | None = None
    anthropic_api_key: str | None = None
    anthropic_model: str = DEFAULT_MODEL
    anthropic_base_url: str | None = None
    anthropic_timeout: float = Field(60.0, gt=0)
    anthropic_max_retries: int = Field(2, ge=0, le=10)
    # Which model answers: Claude (with ANTHROPIC_API_KEY), or an OpenAI-compatible chat completions endpoint.
    model_provider: Literal["claude", "openai"] = "claude"
    openai_base_url: str | None = None
    openai_model: str | None = None
    openai_api_key: str | None = None
    # Tool calling: on, off (the passages go into the prompt), or auto (on until the endpoint refuses tools).
    openai_tools: Literal["auto", "on", "off"] = "auto"
    openai_timeout: float = Field(60.0, gt=0)
    openai_max_retries: int = Field(2, ge=0, le=10)
    # The answering model as the page names it ("Llama 3.1 on the school's server").
    model_display_name: str | None = Field(None, max_length=80)
    docs_dir: Path = Path("docs")
    instance_path: Path = Path("instance")
    chroma_path: Path | None = None
    chroma_host: str | None = None
    chroma_port: int = Field(8000, ge=1, le=65535)
    embedding_model: str | None = None
    embedding_cache_dir: Path | None = None
    chunk_size: int = Field(800, ge=100, le=10_000)
    chunk_overlap: int = Field(100, ge=0)
    max_results: int = Field(5, ge=1, le=MAX_PASSAGES)
    hybrid_search: bool = True
    reranker_model: str | None = None
    max_history: int = Field(2, ge=0, le=20)
    max_tool_rounds: int = Field(2, ge=1, le=10)
    admin_password: str | None = None
    admin_session_hours: float = Field(8.0, gt=0)
    max_upload_mb: float = Field(20.0, gt=0)
    max_document_mb: float = Field(20.0, gt=0)
    max_question_chars: int = Field(2000, ge=1)
    ratelimit_ask: str = "30 per minute"
    ratelimit_login: str = "5 per minute"
    # Per MCP bearer token, over HTTP (`flask mcp --http`).
    ratelimit_mcp: str = "120 per minute"
    ratelimit_storage_uri: str = "memory://"
    ratelimit_enabled: bool = True
    max_streams_per_client: int = Field(4, ge=1, le=1000)
    metrics_enabled: bool = False
    session_cookie_secure: bool = False
    trusted_proxies: int = Field(0, ge=0, le=10)
    database_url: str | None = None
    store_conversations: bool = True
    conversation_retention_days: int = Field(90, ge=1, le=36_500)

    @field_validator(
        "anthropic_api_key",
        "anthropic_base_url",
        "openai_base_url",
        "openai_model",
        "openai_api_key",
        "model_display_name",
        "admin_password",
        "secret_key",
        "chroma_host",
        "database_url",
        "reranker_model",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: Any) -> Any:
        """Treat an empty variable (`FOO=` in .env) as unset."""
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("ratelimit_ask", "ratelimit_login", "ratelimit_mcp")
    @classmethod
    def _parse_limit(cls, value: str) -> str:
        """Refuse a limit that Flask-Limiter would otherwise ignore, silently turning the limit off."""
        try:
            limits = parse_many(value)
        except ValueError:
            raise ValueError(
                f"'{value}' is not a rate limit such as '30 per minute' or '5/minute;100/day'"
            ) from None
        if any(limit.amount < 1 for limit in limits):
            # Every request would be refused forever; turn limits off with RATELIMIT_ENABLED instead.
            raise ValueError(
                f"'{value}' allows no requests at all; give each limit at least 1 "
                "(or set RATELIMIT_ENABLED=false to turn rate limits off)"
            )
        return value

    @field_validator("ratelimit_storage_uri")
    @classmethod
    def _check_storage_scheme(cls, value: str) -> str:
        """Refuse a limit store Flask-Limiter cannot use, before the first request finds out."""
        scheme = value.partition("://")[0]
        if "://" not in value or scheme not in LIMIT_STORAGE_SCHEMES:
            raise ValueError(f"'{value}' is not a storage URI such as memory:// or redis://host:6379")
        return value

    @field_validator("database_url")
    @classmethod
    def _check_database_url(cls, value: str | None) -> str | None:
        """Refuse a database the store has no driver for, before the first question finds out."""
        if value is not None and not value.startswith(DATABASE_SCHEMES):
            raise ValueError(
                f"'{value.partition('://')[0]}://…' is not a database URL such as "
                "postgresql+psycopg://user:password@host/db or sqlite:////path/to/file.db"
            )
        return value

    @model_validator(mode="after")
    def _check_overlap(self) -> Settings:
        """Refuse an overlap that would leave no room for new text in a chunk."""
        if self.chunk_overlap >= self.chunk_size:
            raise ValueError("CHUNK_OVERLAP must be smaller than CHUNK_SIZE")
        return self

    @model_validator(mode="after")
    def _check_openai(self) -> Settings:
        """Refuse MODEL_PROVIDER=openai without a model, or without a server or key to reach it with."""
        if self.model_provider != "openai":
            return self
        if not self.openai_model:
            raise ValueError("MODEL_PROVIDER=openai needs OPENAI_MODEL (the model name the endpoint serves)")
        if not (self.openai_base_url or self.openai_api_key):
            raise ValueError(
                "MODEL_PROVIDER=openai needs OPENAI_BASE_URL (e.g. http://localhost:11434/v1 for Ollama) "
                "or OPENAI_API_KEY"
            )
        return self

    @property
    def resolved_chroma_path(self) -> Path:
        """The embedded ChromaDB folder (default: instance/chroma)."""
        return self.chroma_path or self.instance_path / "chroma"

    @property
    def uses_chroma_server(self) -> bool:
        """True when a `chroma run` server holds the index instead of a local folder."""
        return bool(self.chroma_host)

    @property
    def state_dir(self) -> Path:
        """Where the sync lock and job progress live, beside the index."""
        if self.uses_chroma_server:
            return self.instance_path
        return self.resolved_chroma_path.parent

    @property
    def resolved_database_url(self) -> str:
        """DATABASE_URL, or the SQLite file in INSTANCE_PATH."""
        if self.database_url:
            # A bare postgresql:// or postgres:// URL would pick psycopg2, not installed; psycopg 3 is.
            scheme, _, rest = self.database_url.partition("://")
            return (
                f"postgresql+psycopg://{rest}" if scheme in ("postgresql", "postgres") else self.database_url
            )
        return f"sqlite:///{StatePaths(self.instance_path, self.state_dir).database.resolve()}"

    @property
    def max_upload_bytes(self) -> int:
        """The upload limit in bytes."""
        return int(self.max_upload_mb * 1024 * 1024)

    @property
    def max_document_bytes(self) -> int:
        """The size limit of one course file, however it reached DOCS_DIR, in bytes."""
        return int(self.max_document_mb * 1024 * 1024)

    @property
    def mode(self) -> str:
        """'openai' with MODEL_PROVIDER=openai, else 'claude' with an API key, else 'extractive'."""
        if self.model_provider == "openai":
            return "openai"
        return "claude" if self.anthropic_api_key else "extractive"

    @property
    def model_name(self) -> str | None:
        """The answering model in the operator's words: MODEL_DISPLAY_NAME, else the OpenAI model's name;
        None for Claude without a display name, and in extractive mode."""
        if self.mode == "extractive":
            return None
        return self.model_display_name or (self.openai_model if self.mode == "openai" else None)

    def ensure_secret_key(self) -> str:
        """Return SECRET_KEY, generating one into instance/secret_key when unset."""
        if self.secret_key:
            return self.secret_key
        key_file = StatePaths(self.instance_path, self.state_dir).secret_key
        try:
            return shared_token(key_file)
        except OSError as exc:  # a read-only or full disk at first start: one line, not a traceback
            raise ConfigError(
                f"Invalid setting INSTANCE_PATH: cannot write {key_file}: {exc.strerror}"
            ) from None


def shared_token(key_file: Path) -> str:
    """The key in `key_file`, created by exactly one of any processes racing to create it."""
    key = _read_key(key_file)
    if key is None:
        key_file.parent.mkdir(parents=True, exist_ok=True)
        # mkstemp creates the file 0600; link() publishes it whole and fails if another process won.
        fd, temp = tempfile.mkstemp(dir=key_file.parent, prefix=".secret_key.")
        try:
            with os.fdopen(fd, "w") as handle:
                handle.write(secrets.token_hex(32))
                handle.flush()
                os.fsync(handle.fileno())
            with contextlib.suppress(FileExistsError):  # another process won: use its key
                os.link(temp, key_file)
        finally:
            os.unlink(temp)
        key = _read_key(key_file)
    if not key:
        raise ConfigError(f"Invalid setting SECRET_KEY: {key_file} is empty; delete it or set SECRET_KEY")
    return key


def _read_key(key_file: Path) -> str | None:
    """The stripped contents of `key_file`, or None when it does not exist."""
    try:
        return key_file.read_text().strip()
    except FileNotFoundError:
        return None


def env_file() -> str | None:
    """The dotenv file to read: `.env`, or COURSE_ASSISTANT_ENV_FILE's path (set but empty: none)."""
    return os.environ.get(ENV_FILE_VARIABLE, ".env") or None


def load_settings(overrides: dict[str, Any] | None = None) -> Settings:
    """Read settings from the environment, apply overrides, fail in one line naming the variable."""
    overrides = {key.lower(): value for key, value in (overrides or {}).items()}
    try:
        return Settings(_env_file=env_file(), **overrides)  # type: ignore[call-arg]  # pydantic-settings' init kwarg
    except ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0]).upper() if error["loc"] else "configuration"
        message = error["msg"].removeprefix("Value error, ")
        raise ConfigError(f"Invalid setting {name}: {message}") from None
