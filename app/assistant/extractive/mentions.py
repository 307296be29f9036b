"""The course a question mentions without a naming phrase: by its acronym ("RAG"), or most of its title in
a row ("Vector Databases from Scratch").

A name matcher beside the index's resolver until the index offers this itself: it belongs with
`resolve_course` (see ARCHITECTURE.md, section "Assistant"). Kept a pure function of the text and the
catalog's records so it moves there unchanged.
"""

from __future__ import annotations

from app.search.models import CourseRecord
from app.search.names import acronym_matches, content_words, initials, is_acronym_token, longest_run, tokens


def mentioned_course(text: str, records: list[CourseRecord]) -> tuple[CourseRecord, str] | None:
    """The one course the text mentions and the words that mention it; None for none, or for two (ambiguous:
    search everything rather than pick one). Shared title words ("test a Flask app") are not enough."""
    words = content_words(text)
    found = []
    for record in records:
        title_words = content_words(record.title)
        acronyms = [
            token
            for token in tokens(text)
            if is_acronym_token(token)
            and acronym_matches(token, record.title)
            and (len(token) >= 3 or token.lower() in initials(record.title))
        ]
        if acronyms:
            found.append((record, " ".join(acronyms)))
        elif len(title_words) >= 2 and longest_run(words, title_words) >= max(2, len(title_words) - 1):
            found.append((record, record.title))
    return found[0] if len(found) == 1 else None
