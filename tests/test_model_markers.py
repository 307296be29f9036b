"""A model's own citation markers: which become the app's citations, where, timed at which second."""

from __future__ import annotations

import pytest

from app.assistant.openai.markers import MarkerFilter, ModelCitations
from app.search.models import Passage

BREAD = (
    "Dough rises because yeast turns sugar into carbon dioxide. "
    "Kneading builds gluten, which traps the gas. "
    "A warm kitchen speeds the first rise."
)


def passage(text: str, lesson: int = 1, times: tuple[tuple[int, float], ...] | None = None) -> Passage:
    """A passage of a made-up baking course."""
    return Passage(
        course_title="Baking Basics",
        lesson_number=lesson,
        lesson_title=f"Part {lesson}",
        lesson_link=f"https://example.com/video-{lesson}",
        chunk_index=0,
        score=0.9,
        text=text,
        sentence_times=times,
    )


def timed_bread() -> Passage:
    """The bread passage with each sentence's second in the lesson's video."""
    second = BREAD.index("Kneading")
    third = BREAD.index("A warm")
    return passage(BREAD, times=((0, 10.0), (second, 42.0), (third, 75.0)))


def test_a_supported_marker_cites_the_passage_at_the_second_its_closest_sentence_is_said():
    citations = ModelCitations([timed_bread()])

    markdown = citations.markdown("Kneading develops gluten so the dough holds gas [1].")

    assert markdown == "Kneading develops gluten so the dough holds gas[^1]."
    [source] = citations.sources
    assert source.start_seconds == 42.0
    assert source.link != source.lesson_link and "42" in (source.link or "")
    assert source.snippet.startswith("Kneading builds gluten")


def test_markers_in_a_run_or_a_list_each_resolve_and_share_one_number_per_lesson():
    given = [passage(BREAD, 1), passage("Oven spring is the last burst of rising in a hot oven.", 2)]
    citations = ModelCitations(given)

    markdown = citations.markdown(
        "Yeast makes gas and the oven adds a last rising burst [1, 2]. Yeast again [1][^1]."
    )

    assert markdown == "Yeast makes gas and the oven adds a last rising burst[^1][^2]. Yeast again[^1]."
    assert [source.lesson_number for source in citations.sources] == [1, 2]


@pytest.mark.parametrize(
    "text",
    [
        "Croissants need laminated butter [1].",  # the passage says nothing of it
        "Dough rises because of yeast [2].",  # no passage 2 was given
        "Dough rises because of yeast [0].",
    ],
)
def test_a_marker_without_its_passage_or_its_support_is_dropped(text):
    citations = ModelCitations([passage(BREAD)])

    markdown = citations.markdown(text)

    assert "[" not in markdown and markdown.endswith(".")
    assert citations.sources == [] and len(citations.unverified) == 1


def test_code_and_links_keep_their_brackets():
    citations = ModelCitations([passage(BREAD)])
    text = (
        "Use `rises[1]` and\n\n```\nyeast[1] = sugar\n```\n\nSee [1](https://example.com/one) on sugar [1]."
    )

    markdown = citations.markdown(text)

    assert "`rises[1]`" in markdown and "yeast[1] = sugar" in markdown
    assert markdown.endswith("See [1](https://example.com/one) on sugar[^1].")


def test_a_marker_after_the_full_stop_cites_the_sentence_before_it():
    citations = ModelCitations([passage(BREAD)])

    assert citations.markdown("A warm kitchen speeds rising. [1]") == "A warm kitchen speeds rising.[^1]"


@pytest.mark.parametrize("size", [1, 2, 3, 5])
def test_streamed_text_loses_markers_split_across_pieces(size):
    text = "Dough rises [1]. Gluten traps gas [2, 3]. Keep arr[x] and [see this]. Done [4]"
    shown = MarkerFilter()
    out = "".join(shown.feed(text[i : i + size]) for i in range(0, len(text), size)) + shown.flush()

    assert out == "Dough rises. Gluten traps gas. Keep arr[x] and [see this]. Done"
