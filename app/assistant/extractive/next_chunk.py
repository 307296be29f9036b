"""Where a passage ends, its lesson goes on in the next chunk: a lead opening on a passage's last sentence
reads on there when that chunk was found too.

Chunks end wherever their length runs out, so the sentence that answers is often the last of its passage
("A common mistake is to leave the oven door open.") and what it leads to ("The heat escapes, and the loaf
stays pale.") opens the next one. Reading backwards from it would quote what came before, another point.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from app.assistant.extractive.scoring import Quote
    from app.search.models import Passage


def next_chunk(quotes: Sequence[Quote], passage: Passage) -> list[Quote]:
    """The sentences of the chunk after the passage in its lesson, in reading order, when its passage was
    found too (the sentences it repeats from the overlap are listed under the passage already); else none."""
    course, lesson, chunk = passage.place
    after = (course, lesson, chunk + 1)
    found = [quote for quote in quotes if quote.passage.place == after]
    return sorted(found, key=lambda quote: quote.position)
