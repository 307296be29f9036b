"""A follow-up that says only a few words of its own ("is a fixed cutoff ok?" after a question on cosine
similarity) leaves its subject out: it is the previous question's.

Such a question is searched, and weighed for a decline, with the previous question's words too. Only when
the library says every word of its own: a short follow-up naming something no course says ("and blender?")
asks about that thing, which the previous topic's passages would answer wrongly, so it stays on its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.search.names import stem

if TYPE_CHECKING:
    from app.search.index import CourseIndex

# A follow-up with at most this many words of its own leaves its subject out (intent.FEW_WORDS).
FEW_WORDS = 2


def elliptical(own: list[str], index: CourseIndex) -> bool:
    """True when a follow-up's own content words are few (some, at most FEW_WORDS) and all said by the
    library: it asks something more about the previous topic."""
    stems = list(dict.fromkeys(stem(word) for word in own))
    return 0 < len(stems) <= FEW_WORDS and index.held(stems) == set(stems)
