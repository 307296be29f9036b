"""The admin: sign in, upload courses, sync with live progress, remove and restore courses."""

from app.web.admin import views  # noqa: F401  (its routes join the blueprint)
from app.web.admin.access import bp

__all__ = ["bp"]
