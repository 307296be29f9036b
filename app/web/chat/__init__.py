"""The chat: pages, asking (plain or streamed), stored conversations, feedback, the memory cookie."""

from app.web.chat import answers, manage  # noqa: F401  # their routes join the blueprint
from app.web.chat.views import bp

__all__ = ["bp"]
