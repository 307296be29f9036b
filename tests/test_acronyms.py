"""An acronym a course never writes but says in full ("VAE": "variational auto encoder") is searched so."""

from __future__ import annotations

import pytest

from app.language.acronyms import letters_of, spelled_out

COURSE = "Generative Models Made Plain"
SPELLED = (
    "So, um, today the variational auto encoder. The variational auto encoder learns a smooth latent space, "
    "and that is why its samples come out blurry: it averages over every image that could fit."
)
OTHER = "Next time we look at flow models, which transform a simple noise distribution step by step."


def test_an_acronym_stands_for_its_capitals():
    assert letters_of("VAE") == "vae"
    assert letters_of("ReLU") == "rlu"
    assert letters_of("LoRA") == "lra"
    # A name, a letter, a name in capitalised parts: no acronym.
    assert letters_of("Adam") == letters_of("a") == letters_of("ImageNet") == letters_of("AutoML") == ""


def test_the_words_an_acronym_stands_for_are_found_side_by_side():
    assert spelled_out("VAE", "So the Variational Auto Encoder is") == "variational auto encoder"
    assert spelled_out("ReLU", "a rectified linear unit clips") == "rectified linear unit"
    # A stopword or a filler in between breaks the run.
    assert spelled_out("VAE", "very adaptive and exciting") is None
    assert spelled_out("VAE", "the variational, um, auto encoder") is None


@pytest.fixture(scope="module")
def answerer(tmp_path_factory):
    """An extractive answerer over a two-lesson course that says "variational auto encoder", never "VAE"."""
    from tests.helpers import Library

    library = Library(tmp_path_factory.mktemp("vae"))
    (library.docs / "generative.txt").write_text(
        f"Course Title: {COURSE}\nCourse Instructor: Test Person\n"
        f"Lesson 1: Auto encoders\nLesson Link: https://example.com/1\n{SPELLED}\n"
        f"Lesson 2: Flows\nLesson Link: https://example.com/2\n{OTHER}\n"
    )
    return library.synced().answerer()


def test_an_acronym_the_course_neither_writes_nor_says_in_full_is_still_declined(answerer):
    answer = answerer.answer("why are GAN samples blurry?", [])

    assert "never mention “GAN”" in answer.markdown and not answer.sources
