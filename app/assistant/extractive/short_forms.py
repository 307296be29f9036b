"""Words that programmers write short and courses write in full ("app" for "application", "db" for
"database"): too short to be found by their first letters (app/search/shortened.py), so they are listed."""

from __future__ import annotations

# Stemmed short form: stemmed full word. Only forms that stand for one word in a course's prose.
SHORT_FORMS = {
    "app": "application",
    "config": "configuration",
    "db": "database",
    "dir": "directory",
    "env": "environment",
    "lib": "library",
    "param": "parameter",
    "repo": "repository",
}


def in_full(word: str) -> str:
    """The word as a course writes it: the full word for a listed short form, else the word itself."""
    return SHORT_FORMS.get(word, word)
