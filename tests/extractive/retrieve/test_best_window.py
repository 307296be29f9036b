"""Small-to-big within one lesson: a passage that answers in one sentence among others is found by it."""

from __future__ import annotations

import numpy as np
import pytest

from app.search.embedding import get_embedder
from app.search.embedding.kept import KeptVectors
from app.search.models import Passage
from app.search.parts import keep_more, part_scope
from app.search.searcher import SearchRequest
from app.search.split import split_comparison
from app.search.windows import by_best_window, windows
from tests.helpers import Library, titled_course_text

# Speech that answers in passing: one sentence about faces among a trip's small talk.
IN_PASSING = (
    "Right, so let's get started with the budget for the trip. We booked the train tickets in March. "
    "The hotel was cheaper on weekdays. Some patients after a stroke can no longer recognise the faces of "
    "their own family. Then we spent the afternoon at the museum. Lunch was a sandwich by the river."
)
# About the brain throughout, and answering nothing about faces.
ON_TOPIC = (
    "The brain is made of billions of neurons. Different areas of the brain do different jobs, from moving "
    "the hands to seeing colours. Scientists study the brain with scanners and with patients."
)
ASKED = "which patients lose the ability to recognise faces"


def passage(chunk: int, text: str = "t", course: str = "C") -> Passage:
    """A passage of lesson 1 of a course."""
    return Passage(
        course_title=course, lesson_number=1, lesson_title="L", chunk_index=chunk, score=0.5, text=text
    )


def test_windows_are_runs_of_two_sentences_side_by_side():
    assert windows("One here. Two there. Three now.") == ["One here. Two there.", "Three now."]
    assert windows("Only one sentence.") == ["Only one sentence."]
    assert windows("") == []


def test_a_passage_answering_in_one_sentence_ranks_first_by_its_best_window():
    embedder = get_embedder()
    query = embedder.embed_query(ASKED)
    whole = np.asarray(embedder.embed_documents([IN_PASSING, ON_TOPIC])) @ query
    # By its one vector, the passage that answers ranks below the one that is on topic throughout.
    assert whole[0] < whole[1]

    ranked = by_best_window(KeptVectors(embedder, 100), ASKED, [passage(0, ON_TOPIC), passage(1, IN_PASSING)])

    assert [found.chunk_index for found in ranked] == [1, 0]


class Counting:
    """The real embedder, counting the texts it embeds as documents."""

    def __init__(self):
        self.embedder = get_embedder()
        self.embedded = 0

    def embed_query(self, text: str) -> np.ndarray:
        return self.embedder.embed_query(text)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded += len(texts)
        return self.embedder.embed_documents(texts)


def test_a_window_is_embedded_once_for_every_search_that_meets_it():
    embedder = Counting()
    kept = KeptVectors(embedder, 100)  # type: ignore[arg-type]
    passages = [passage(0, ON_TOPIC), passage(1, IN_PASSING)]
    first = by_best_window(kept, ASKED, passages)
    embedded = embedder.embedded
    assert embedded == len(windows(ON_TOPIC)) + len(windows(IN_PASSING))

    assert by_best_window(kept, "who forgets faces", passages[::-1])[0] == passage(1, IN_PASSING)
    assert by_best_window(kept, ASKED, passages) == first
    assert embedder.embedded == embedded


def test_the_parts_further_passages_take_the_last_third_once_each_part_in_turn():
    kept = [passage(chunk) for chunk in range(6)]
    more = [
        [passage(1, course="b"), passage(3), passage(2, course="b")],
        [passage(0, course="c"), passage(1, course="b")],
    ]

    found = keep_more(kept, more, 6)

    # Two last places (a third of six): each part's best passage not kept already, in turn.
    assert [(p.course_title, p.chunk_index) for p in found] == [
        ("C", 0),
        ("C", 1),
        ("C", 2),
        ("C", 3),
        ("b", 1),
        ("c", 0),
    ]
    assert keep_more(kept, [], 6) == kept
    assert keep_more(kept[:2], more, 2) == kept[:2]


BRAIN = (
    "Scientists show patients pictures of faces inside a scanner and watch which areas of the brain light "
    "up. The brain is made of billions of neurons, and different areas of it do different jobs, from moving "
    "the hands to seeing colours and shapes.",
    "Memory is kept in the brain by strengthening the links between neurons that fire together. Sleep "
    "helps: what was learned in the day is replayed at night, and the links that were used grow stronger, "
    "while the links that were never used fade away.",
    "Doctors test patients after damage to the brain by asking them to name objects, to read words aloud "
    "and to copy simple drawings; each test that fails points to the area of the brain that was hurt, and "
    "a scan of the head then shows where it is and how large.",
    IN_PASSING,
)
CAMERAS = (
    "A camera network learns to find faces in photos: early layers respond to edges, later layers to "
    "eyes and noses, and the last ones to whole faces, so that each face is recognised by its parts, one "
    "layer after another, until a whole face is found.",
    "Face recognition datasets hold millions of labelled faces, and networks trained on them recognise "
    "faces better than most people do, even faces seen from the side or in poor light, and even faces "
    "that have aged by ten or twenty years.",
    "Recognising faces in a crowd from a street camera raises questions of privacy and of who is watching "
    "the patients, the shoppers and everyone else who walks past the camera, day and night, and of who "
    "keeps the recordings.",
)
COMPARED = (
    "What do the camera lecture and the brain lecture say about which patients lose the ability to "
    "recognise faces?"
)


@pytest.fixture(scope="module")
def library(tmp_path_factory) -> Library:
    """One course with a lesson on the brain and one on cameras, one passage per paragraph."""
    library = Library(tmp_path_factory.mktemp("windows"), chunk_size=300, chunk_overlap=0)
    lessons = (("The Brain", "\n\n".join(BRAIN)), ("Seeing with Cameras", "\n\n".join(CAMERAS)))
    (library.docs / "mind.txt").write_text(titled_course_text("Mind and Machine", *lessons))
    return library.synced()


def test_a_part_naming_a_lesson_keeps_its_passage_that_answers_in_passing(library):
    index = library.index
    snapshot = index.catalog.snapshot()
    whole = index.searcher.search(SearchRequest(COMPARED, snapshot, snapshot.entries, None, None, 3))
    assert IN_PASSING not in [p.text for p in whole]
    camera, brain = split_comparison(COMPARED) or ("", "")
    where = part_scope(index.searcher, brain, camera, snapshot, snapshot.entries, None)
    assert where.lesson == 1
    # Within its lesson, the passage that answers comes third by its one vector: two on-topic ones lead.
    request = SearchRequest(where.query, snapshot, where.entries, where.course, where.lesson, 3)
    within = index.searcher.search(request)
    assert [p.text for p in within] == [BRAIN[0], BRAIN[2], IN_PASSING]

    found = [p.text for p in index.search(COMPARED, k=3)]

    # The whole question's first, the brain lesson's first, then the brain lesson's best by a window.
    assert found[0] == whole[0].text
    assert found[1:] == [BRAIN[0], IN_PASSING]
