"""The period an insights page covers: the last 7, 30 or 90 days, or a chosen range of UTC days."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from app.errors import BadRequest

PRESETS = (7, 30, 90)
DEFAULT_DAYS = 30
# A longer range still works; the chart's bars just get thin. A year keeps the page readable.
MAX_DAYS = 366
# The calendar's ends a period may reach.
FIRST_DAY = date.min.isoformat()
LAST_DAY = (date.max - timedelta(days=1)).isoformat()


@dataclass(frozen=True)
class Period:
    """Whole UTC days from `first` to `last`, both included; `preset` is the day count a preset chose."""

    first: date
    last: date
    preset: int | None = None

    @property
    def since(self) -> datetime:
        """The period's start, for the question log."""
        return datetime.combine(self.first, time(), tzinfo=UTC)

    @property
    def until(self) -> datetime:
        """The end of the period's last day (exclusive)."""
        return datetime.combine(self.last + timedelta(days=1), time(), tzinfo=UTC)

    @property
    def days(self) -> list[date]:
        """Every day of the period, oldest first."""
        return [self.first + timedelta(days=offset) for offset in range((self.last - self.first).days + 1)]

    @property
    def label(self) -> str:
        """The period in words."""
        if self.preset is not None:
            return f"the last {self.preset} days"
        return f"{self.first.isoformat()} to {self.last.isoformat()}"

    def query(self) -> dict[str, str]:
        """The period as URL parameters (for the CSV link)."""
        if self.preset is not None:
            return {"days": str(self.preset)}
        return {"from": self.first.isoformat(), "to": self.last.isoformat()}


def _day(text: str, name: str) -> date:
    """A YYYY-MM-DD date, or a BadRequest naming the field."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise BadRequest(f"The {name} date must look like 2025-01-31.") from None


def parse_period(args: Mapping[str, str], today: date | None = None) -> Period:
    """The period the page's GET form asks for: `from`/`to` when given, else `days` (7, 30 or 90)."""
    try:
        period = _period(args, today or datetime.now(UTC).date())
        if period.last < date.max:  # the period ends where the day after its last starts
            return period
    except OverflowError:  # no `from` near year 1: the default start would fall before the calendar
        pass
    raise BadRequest(f"Choose dates between {FIRST_DAY} and {LAST_DAY}.")


def _period(args: Mapping[str, str], today: date) -> Period:
    """parse_period's work; OverflowError for a period the calendar cannot hold."""
    first_text = (args.get("from") or "").strip()
    last_text = (args.get("to") or "").strip()
    if first_text or last_text:
        first = _day(first_text, "start") if first_text else None
        last = _day(last_text, "end") if last_text else today
        first = first or last - timedelta(days=DEFAULT_DAYS - 1)
        if first > last:
            raise BadRequest("The start date is after the end date.")
        if (last - first).days + 1 > MAX_DAYS:
            raise BadRequest(f"Choose a period of at most {MAX_DAYS} days.")
        return Period(first, last)
    days_text = (args.get("days") or str(DEFAULT_DAYS)).strip()
    if days_text not in {str(days) for days in PRESETS}:
        raise BadRequest("Choose the last 7, 30 or 90 days, or a start and end date.")
    days = int(days_text)
    return Period(today - timedelta(days=days - 1), today, preset=days)
