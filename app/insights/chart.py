"""The questions-per-day chart: stacked bars by course, laid out here and drawn as SVG by a template."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from datetime import date

from app.insights.period import Period
from app.store.records import DayCount

WIDTH, HEIGHT = 720, 260
LEFT, RIGHT, TOP, BOTTOM = 48, 12, 14, 46
# Colours come from CSS classes series-0 ... series-5; more courses than that share "Other courses".
SERIES = 6
OTHER = "Other courses"
NO_COURSE = "No course"
MAX_DAY_LABELS = 10


@dataclass(frozen=True)
class Segment:
    """One course's part of one day's bar."""

    x: float
    y: float
    width: float
    height: float
    series: int
    title: str


@dataclass(frozen=True)
class Mark:
    """A labelled place on an axis."""

    at: float
    label: str


@dataclass(frozen=True)
class Series:
    """A course in the legend: its colour class and its questions in the period."""

    index: int
    name: str
    total: int


@dataclass(frozen=True)
class DayRow:
    """A day in the data table: its questions per series, in legend order, and in all."""

    day: date
    counts: list[int]
    total: int


@dataclass(frozen=True)
class Chart:
    """Everything the SVG template and its table need, in SVG user units."""

    width: int
    height: int
    left: int
    top: int
    right: int
    bottom: int
    segments: list[Segment]
    y_marks: list[Mark]
    x_marks: list[Mark]
    series: list[Series]
    rows: list[DayRow]
    total: int
    description: str


def _name(course: str | None) -> str:
    """A course's name in the chart."""
    return course or NO_COURSE


def _next_step(step: int) -> int:
    """The round step after `step`: 1, 2, 5, 10, 20, 50, ..."""
    leading = int(str(step)[0])
    return step * 2 if leading == 1 else step * 5 // 2 if leading == 2 else step * 2


def _series(counts: list[DayCount]) -> tuple[list[Series], dict[str, int]]:
    """The legend (busiest course first) and each course's series index."""
    totals: Counter[str] = Counter()
    for row in counts:
        totals[_name(row.course)] += row.count
    ranked = sorted(totals, key=lambda name: (-totals[name], name))
    shown = ranked if len(ranked) <= SERIES else ranked[: SERIES - 1]
    index = {name: number for number, name in enumerate(shown)}
    legend = [Series(number, name, totals[name]) for name, number in index.items()]
    rest = [name for name in ranked if name not in index]
    if rest:
        for name in rest:
            index[name] = SERIES - 1
        legend.append(Series(SERIES - 1, OTHER, sum(totals[name] for name in rest)))
    return legend, index


def build_chart(counts: list[DayCount], period: Period) -> Chart:
    """Lay out the stacked bars of questions per day and course over the period."""
    legend, index = _series(counts)
    per_day: dict[date, list[int]] = {day: [0] * len(legend) for day in period.days}
    for count in counts:
        if count.day in per_day:
            per_day[count.day][index[_name(count.course)]] += count.count
    rows = [DayRow(day, values, sum(values)) for day, values in per_day.items()]
    step = _next_step_at_least(max((row.total for row in rows), default=0))
    top_value = max(step * math.ceil(max(row.total for row in rows) / step), step)
    plot_height = HEIGHT - TOP - BOTTOM
    slot = (WIDTH - LEFT - RIGHT) / len(rows)
    y_marks = [
        Mark(round(TOP + plot_height * (1 - value / top_value), 2), str(value))
        for value in range(0, top_value + 1, step)
    ]
    every = math.ceil(len(rows) / MAX_DAY_LABELS)
    x_marks = [
        Mark(round(LEFT + number * slot + slot / 2, 2), row.day.strftime("%m-%d"))
        for number, row in enumerate(rows)
        if number % every == 0
    ]
    total = sum(row.total for row in rows)
    return Chart(
        width=WIDTH,
        height=HEIGHT,
        left=LEFT,
        top=TOP,
        right=WIDTH - RIGHT,
        bottom=TOP + plot_height,
        segments=_segments(rows, legend, slot, top_value),
        y_marks=y_marks,
        x_marks=x_marks,
        series=legend,
        rows=rows,
        total=total,
        description=_describe(rows, legend, total, period),
    )


def _segments(rows: list[DayRow], legend: list[Series], slot: float, top_value: int) -> list[Segment]:
    """Each day's bar as one segment per course, stacked from the axis up."""
    plot_height = HEIGHT - TOP - BOTTOM
    bar = max(slot * 0.8, 1.0)
    segments: list[Segment] = []
    for number, row in enumerate(rows):
        x = LEFT + number * slot + (slot - bar) / 2
        base = float(TOP + plot_height)
        for series in legend:
            value = row.counts[series.index]
            if not value:
                continue
            height = plot_height * value / top_value
            base -= height
            noun = "question" if value == 1 else "questions"
            title = f"{row.day.isoformat()}, {series.name}: {value} {noun}"
            segments.append(
                Segment(round(x, 2), round(base, 2), round(bar, 2), round(height, 2), series.index, title)
            )
    return segments


def _next_step_at_least(peak: int) -> int:
    """The smallest round step (1, 2, 5, 10, ...) that reaches the peak in at most five steps."""
    step = 1
    while math.ceil(peak / step) > 5:
        step = _next_step(step)
    return step


def _describe(rows: list[DayRow], legend: list[Series], total: int, period: Period) -> str:
    """The chart in a sentence or two, for screen readers."""
    noun = "question" if total == 1 else "questions"
    text = f"{total} {noun} from {period.first.isoformat()} to {period.last.isoformat()}."
    if total:
        busiest = max(rows, key=lambda row: (row.total, row.day))
        text += f" Busiest day: {busiest.day.isoformat()} with {busiest.total}."
        text += " By course: " + "; ".join(f"{series.name} {series.total}" for series in legend) + "."
    return text
