"""The shared rules: one question check, one history window, one snippet cut, for every face."""

from __future__ import annotations

import pytest

from app.errors import BadRequest
from app.rules import checked_question, question_problem, recent, snippet


def test_a_question_is_stripped_and_checked_against_its_limit():
    assert checked_question("  What is RAG?\n", 20) == "What is RAG?"
    with pytest.raises(BadRequest, match="Type a question first."):
        checked_question(" \t ", 20)
    assert question_problem("x" * 21, 20) == "Questions can be up to 20 characters; this one has 21."


@pytest.mark.parametrize(("max_history", "kept"), [(0, []), (1, [3]), (2, [2, 3]), (5, [1, 2, 3])])
def test_the_history_window_keeps_the_newest_exchanges(max_history, kept):
    assert recent([1, 2, 3], max_history) == kept


def test_a_snippet_is_cut_at_a_word_boundary_with_an_ellipsis():
    assert snippet("one  two\nthree", 50) == "one two three"
    assert snippet("alpha beta, gamma delta", 14) == "alpha beta…"
