"""The chat: the page, asking (plain or streamed), the history cookie, course outlines, the theme switch."""

from app.web.chat.views import bp

__all__ = ["bp"]
