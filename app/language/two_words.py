"""Words a question writes as one that a course writes as two ("minibatch": "mini batch").

Speech recognition writes a compound apart as often as together ("data set", "auto encoder", "mini batch"),
and students write it as they learned it. Hyphenated compounds are matched both ways already (names.py);
an unhyphenated one is matched here: a word the library never says, split into two words it does say.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from app.language.lexicon import STOPWORDS
from app.language.tokens import stem, tokens

# Each half at least this long: shorter halves ("a", "in", "by") split ordinary words into noise.
MIN_PART = 3
# Words shorter than this are not compounds of two halves of MIN_PART letters and a bit.
MIN_WORD = 6


def halves(word: str) -> list[tuple[str, str]]:
    """Every way to cut a word in two halves of MIN_PART letters or more, neither a stopword."""
    lowered = word.lower()
    if not lowered.isalpha() or len(lowered) < MIN_WORD:
        return []
    cuts = [(lowered[:cut], lowered[cut:]) for cut in range(MIN_PART, len(lowered) - MIN_PART + 1)]
    return [(first, second) for first, second in cuts if first not in STOPWORDS and second not in STOPWORDS]


def split(
    word: str, known: Callable[[str], bool], together: Callable[[str, str], bool] = lambda *_: True
) -> tuple[str, str] | None:
    """The word as two words that `known` accepts (by stem) and `together` finds side by side, or None; the
    most even halves win ("minibatching": "mini", "batching")."""
    found = [
        (first, second)
        for first, second in halves(word)
        if known(stem(first)) and known(stem(second)) and together(stem(first), stem(second))
    ]
    return max(found, key=lambda pair: min(len(pair[0]), len(pair[1])), default=None)


def said_apart(word: str, text: str) -> bool:
    """True when `text` says the word's two halves side by side ("mini batches" says "minibatching")."""
    return bool(words_said_apart([word], text))


def words_said_apart(words: Iterable[str], text: str) -> list[str]:
    """The words whose two halves `text` says side by side ("image net" says "imagenet"), reading it once."""
    stems = [stem(token) for token in tokens(text)]
    pairs = set(zip(stems, stems[1:], strict=False))
    return [word for word in words if any((stem(one), stem(two)) in pairs for one, two in halves(word))]
