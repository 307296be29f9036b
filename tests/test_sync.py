"""Indexer.sync on a real docs folder, ChromaDB folder and model: add, change, remove, fail, refuse, lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading

import pytest

from app.config import load_settings
from app.courses.parsing import parse_bytes
from app.errors import AppError, SyncBusy
from app.library.sync import Indexer, last_sync
from app.search.index import CourseIndex
from app.search.models import SyncProgress
from app.search.store import CONTENT
from tests.helpers import CountingEmbedder, FakeEmbedder, Library, course_text

ONIONS = "Caramelized onions need forty minutes of patience over low heat."
SHALLOTS = "Pickled shallots bring sharp acidity to a rich braise."
TOMATOES = "Tomato seedlings want full sun and deep watering."


@pytest.fixture
def lib(tmp_path) -> Library:
    """An empty library with two courses written but not yet indexed."""
    library = Library(tmp_path)
    library.write("garden.txt", "Garden Basics", TOMATOES)
    library.write("kitchen.txt", "Kitchen Basics", ONIONS)
    return library


def test_add_then_unchanged_files_are_skipped_without_embedding(lib):
    report = lib.indexer.sync()
    assert lib.statuses(report) == {"garden.txt": "added", "kitchen.txt": "added"}
    assert report.chunks == 2 and not report.problems
    assert [record.title for record in lib.index.courses()] == ["Garden Basics", "Kitchen Basics"]
    counting = CountingEmbedder(lib.index.embedder)
    lib.index.embedder = counting
    again = lib.indexer.sync()
    assert lib.statuses(again) == {"garden.txt": "unchanged", "kitchen.txt": "unchanged"}
    assert counting.texts == 0


def test_a_changed_file_replaces_its_course(lib):
    lib.indexer.sync()
    before = lib.index.get_course("kitchen-basics")
    lib.write("kitchen.txt", "Kitchen Basics", SHALLOTS)
    report = lib.indexer.sync()
    assert lib.statuses(report) == {"garden.txt": "unchanged", "kitchen.txt": "updated"}
    texts = lib.texts("onions shallots", course="Kitchen Basics")
    assert texts == [SHALLOTS]
    after = lib.index.get_course("kitchen-basics")
    assert after.content_hash != before.content_hash


def test_a_removed_file_removes_its_course(lib):
    lib.indexer.sync()
    (lib.docs / "kitchen.txt").unlink()
    report = lib.indexer.sync()
    removed = [result for result in report.results if result.status == "removed"]
    assert [(result.file, result.course_title) for result in removed] == [("kitchen.txt", "Kitchen Basics")]
    assert [record.title for record in lib.index.courses()] == ["Garden Basics"]
    assert not any(ONIONS in text for text in lib.texts("onions"))


def test_a_parse_failure_keeps_the_indexed_version(lib):
    lib.indexer.sync()
    (lib.docs / "kitchen.txt").write_bytes(b"Course Title: Kitchen\x00Basics\n")
    (lib.docs / "broken.txt").write_bytes(b"")
    report = lib.indexer.sync()
    failed = {result.file: result for result in report.problems}
    assert set(failed) == {"broken.txt", "kitchen.txt"}
    assert all(result.status == "failed" for result in failed.values())
    assert failed["kitchen.txt"].error.startswith("kitchen.txt: ")
    assert failed["broken.txt"].error == "broken.txt: the file is empty"
    assert lib.texts("onions", course="Kitchen Basics") == [ONIONS]
    assert [record.title for record in lib.index.courses()] == ["Garden Basics", "Kitchen Basics"]


def test_a_second_file_with_the_same_title_is_refused(lib):
    lib.write("kitchen-copy.txt", "Kitchen Basics", SHALLOTS)
    report = lib.indexer.sync()
    # "kitchen-copy.txt" sorts before "kitchen.txt", so it takes the title and the later file is refused.
    assert lib.statuses(report)["kitchen-copy.txt"] == "added"
    refused = report.problems
    assert [(result.file, result.status) for result in refused] == [("kitchen.txt", "refused")]
    assert "kitchen.txt" in refused[0].error and "kitchen-copy.txt" in refused[0].error


def test_the_file_that_owns_a_title_keeps_it(lib):
    lib.indexer.sync()
    lib.write("a-kitchen.txt", "Kitchen Basics", SHALLOTS)
    report = lib.indexer.sync()
    assert lib.statuses(report) == {
        "a-kitchen.txt": "refused",
        "garden.txt": "unchanged",
        "kitchen.txt": "unchanged",
    }
    assert report.problems[0].error == "a-kitchen.txt: 'Kitchen Basics' is already the course in kitchen.txt"
    assert lib.texts("onions", course="Kitchen Basics") == [ONIONS]


def test_a_renamed_file_keeps_its_course(lib):
    lib.indexer.sync()
    (lib.docs / "kitchen.txt").rename(lib.docs / "cooking.txt")
    report = lib.indexer.sync()
    assert lib.statuses(report) == {"cooking.txt": "updated", "garden.txt": "unchanged"}
    assert lib.index.get_course("kitchen-basics").source_file == "cooking.txt"
    assert lib.texts("onions", course="Kitchen Basics") == [ONIONS]


def test_a_retitled_file_replaces_its_old_course(lib):
    lib.indexer.sync()
    lib.write("kitchen.txt", "Cooking Basics", ONIONS)
    report = lib.indexer.sync()
    kitchen = [
        (result.status, result.course_title) for result in report.results if result.file == "kitchen.txt"
    ]
    assert kitchen == [("added", "Cooking Basics"), ("removed", "Kitchen Basics")]
    assert [record.title for record in lib.index.courses()] == ["Cooking Basics", "Garden Basics"]


def stored_chunks(index: CourseIndex) -> list[tuple[str, str, str]]:
    """Every chunk in the content collection as (course id, version, text)."""
    result = index.store.run(CONTENT, "get", include=["metadatas", "documents"])
    return [
        (metadata["course_id"], metadata["version"], text)
        for metadata, text in zip(result["metadatas"], result["documents"], strict=True)
    ]


def test_rebuild_writes_every_course_again_under_a_new_version(lib):
    lib.indexer.sync()
    before = lib.index.versions()
    report = lib.indexer.sync(rebuild=True)
    assert report.rebuild is True
    assert lib.statuses(report) == {"garden.txt": "updated", "kitchen.txt": "updated"}
    after = lib.index.versions()
    assert set(after) == set(before) and all(after[course] != before[course] for course in before)
    assert {(course, version) for course, version, _ in stored_chunks(lib.index)} == set(after.items())
    assert lib.texts("onions", course="Kitchen Basics") == [ONIONS]
    assert not lib.indexer.rebuild_marker.exists()
    # A second rebuild is a new generation again.
    lib.indexer.sync(rebuild=True)
    assert all(version not in after.values() for version in lib.index.versions().values())


def test_rebuild_keeps_the_old_version_of_a_file_that_no_longer_parses(lib):
    lib.indexer.sync()
    kitchen_version = lib.index.versions()["kitchen-basics"]
    (lib.docs / "kitchen.txt").write_bytes(b"Course Title: Kitchen\x00Basics\n")
    report = lib.indexer.sync(rebuild=True)
    assert lib.statuses(report) == {"garden.txt": "updated", "kitchen.txt": "failed"}
    assert report.problems[0].course_title == "Kitchen Basics"
    assert lib.index.versions()["kitchen-basics"] == kitchen_version
    assert lib.texts("onions", course="Kitchen Basics") == [ONIONS]
    assert lib.index.purge_orphans() == 0


def test_a_rebuild_killed_half_way_leaves_every_course_searchable_and_the_next_sync_finishes_it(
    lib, monkeypatch
):
    lib.write("bakery.txt", "Bakery Basics", SHALLOTS)
    lib.indexer.sync()
    before = lib.index.versions()
    real_upsert = lib.index.upsert_course
    written: list[str] = []

    def killed_after_one(course, chunks, generation="", on_chunks=None):
        if written:
            raise KeyboardInterrupt("killed after the first course of the rebuild")
        written.append(course.title)
        return real_upsert(course, chunks, generation=generation, on_chunks=on_chunks)

    with monkeypatch.context() as patch:
        patch.setattr(lib.index, "upsert_course", killed_after_one)
        with pytest.raises(KeyboardInterrupt):
            lib.indexer.sync(rebuild=True)
    middle = lib.index.versions()
    assert written == ["Bakery Basics"] and middle["bakery-basics"] != before["bakery-basics"]
    assert {course: middle[course] for course in ("garden-basics", "kitchen-basics")} == {
        course: before[course] for course in ("garden-basics", "kitchen-basics")
    }
    assert lib.texts("acidity", course="Bakery Basics") == [SHALLOTS]
    assert lib.texts("tomatoes", course="Garden Basics") == [TOMATOES]
    assert lib.texts("onions", course="Kitchen Basics") == [ONIONS]
    assert lib.indexer.rebuild_marker.exists()

    counting = CountingEmbedder(lib.index.embedder)
    lib.index.embedder = counting
    report = lib.indexer.sync()  # a plain sync picks up the unfinished rebuild
    assert report.rebuild is True
    assert lib.statuses(report) == {
        "bakery.txt": "unchanged",
        "garden.txt": "updated",
        "kitchen.txt": "updated",
    }
    # The course already rebuilt is not embedded again: two chunks and two catalog titles, plus the probe.
    assert counting.texts == 5
    after = lib.index.versions()
    assert after["bakery-basics"] == middle["bakery-basics"]
    assert all(after[course] != before[course] for course in before)
    assert lib.index.purge_orphans() == 0 and not lib.indexer.rebuild_marker.exists()
    assert lib.statuses(lib.indexer.sync()) == dict.fromkeys(
        ["bakery.txt", "garden.txt", "kitchen.txt"], "unchanged"
    )


def test_rebuild_with_a_new_chunk_size_replaces_every_chunk(lib, tmp_path):
    sentences = " ".join(f"Step {n} of the braise adds stock and tastes the sauce again." for n in range(30))
    lib.write("kitchen.txt", "Kitchen Basics", sentences)
    lib.indexer.sync()
    old_chunks = stored_chunks(lib.index)
    small = load_settings({"docs_dir": lib.docs, "instance_path": tmp_path / "instance", "chunk_size": 200})
    index = CourseIndex(small)
    report = Indexer(small, index).sync(rebuild=True)
    assert lib.statuses(report) == {"garden.txt": "updated", "kitchen.txt": "updated"}
    chunks = stored_chunks(index)
    versions = index.versions()
    assert {(course, version) for course, version, _ in chunks} == set(versions.items())
    assert not {text for *_, text in old_chunks if len(text) > 200} & {text for *_, text in chunks}
    kitchen = [text for course, _, text in chunks if course == "kitchen-basics"]
    assert len(kitchen) == index.get_course("kitchen-basics").chunk_count > 3
    assert max(len(text) for text in kitchen) <= 200


def test_rebuild_after_a_change_of_vector_size_starts_from_an_empty_index(lib):
    other_model = CourseIndex(lib.settings, embedder=FakeEmbedder(dimension=8))
    Indexer(lib.settings, other_model).sync()
    assert lib.index.stored_dimension() == 8
    report = lib.indexer.sync(rebuild=True)
    assert lib.statuses(report) == {"garden.txt": "added", "kitchen.txt": "added"}
    assert lib.index.stored_dimension() == lib.index.model_dimension() == 384
    assert lib.texts("onions", course="Kitchen Basics") == [ONIONS]


def test_a_new_encoder_re_embeds_every_course_on_the_next_plain_sync(lib):
    # An index whose vectors another encoder made: another model, or an older export of this one.
    older = CourseIndex(lib.settings, embedder=FakeEmbedder(dimension=384))
    Indexer(lib.settings, older).sync()
    assert lib.index.stale_encoders() == {"fake 384"}
    counting = CountingEmbedder(lib.index.embedder)
    lib.index.embedder = counting
    report = lib.indexer.sync()
    assert report.rebuild is True
    assert lib.statuses(report) == {"garden.txt": "updated", "kitchen.txt": "updated"}
    assert counting.documents == 2 and lib.index.stale_encoders() == set()
    assert lib.texts("onions", course="Kitchen Basics") == [ONIONS]
    assert not lib.indexer.rebuild_marker.exists()
    assert lib.statuses(lib.indexer.sync()) == {"garden.txt": "unchanged", "kitchen.txt": "unchanged"}


def test_a_plain_sync_after_a_model_of_another_size_starts_from_an_empty_index(lib):
    Indexer(lib.settings, CourseIndex(lib.settings, embedder=FakeEmbedder(dimension=8))).sync()
    report = lib.indexer.sync()
    assert lib.statuses(report) == {"garden.txt": "added", "kitchen.txt": "added"}
    assert lib.index.stored_dimension() == 384
    assert lib.texts("onions", course="Kitchen Basics") == [ONIONS]


def test_only_course_documents_are_synced(lib):
    (lib.docs / "README.md").write_text("# notes\n")
    (lib.docs / ".hidden.txt").write_text(course_text("Hidden", "secret"))
    (lib.docs / "notes.md").write_text("notes\n")
    (lib.docs / "sub.txt").mkdir()
    assert [path.name for path in lib.indexer.supported_files()] == ["garden.txt", "kitchen.txt"]


def test_a_readme_txt_is_a_course_like_any_other_txt(lib):
    # Only Markdown is documentation: a README.txt is indexed, so an uploaded one is never silently dropped.
    lib.write("README.TXT", "Reading Basics", SHALLOTS)
    report = lib.indexer.sync()
    assert lib.statuses(report)["README.TXT"] == "added"
    assert lib.texts("acidity", course="Reading Basics") == [SHALLOTS]


def test_progress_counts_unchanged_files_done_first_then_reports_each_other_file(lib):
    lib.indexer.sync()
    (lib.docs / "garden.txt").unlink()
    lib.write("pantry.txt", "Pantry Basics", "Dry beans keep for a year in a sealed jar.")
    events: list[SyncProgress] = []
    lib.indexer.sync(progress=events.append)
    assert (events[0].done, events[0].total, events[0].current_file) == (1, 3, "kitchen.txt")
    ended = [(e.done, e.current_file, e.result.status) for e in events if e.result is not None]
    assert ended == [
        (1, "kitchen.txt", "unchanged"),
        (2, "pantry.txt", "added"),
        (3, "garden.txt", "removed"),
    ]
    # The file being indexed shows its step and its chunks as they are written, never going backwards.
    working = [event for event in events if event.current_file == "pantry.txt" and event.done == 1]
    assert {"Parsing", "Splitting into chunks"} <= {event.step for event in working if event.step}
    assert any(event.chunks_total for event in working)
    assert [event.done for event in events] == sorted(event.done for event in events)


def test_a_large_file_reports_its_chunks_as_they_are_written(lib, monkeypatch):
    monkeypatch.setattr("app.search.writer.WRITE_BATCH", 2)
    lib.write("kitchen.txt", "Kitchen Basics", *[f"{ONIONS} Step {number}." for number in range(5)])
    events: list[SyncProgress] = []
    lib.indexer.sync(progress=events.append)
    kitchen = [
        (e.done, e.chunks_done, e.chunks_total, e.step) for e in events if e.current_file == "kitchen.txt"
    ]
    # Before the file, each step as it starts, each batch of two chunks as it lands (five lessons, five
    # chunks), after the file.
    embedding = "Embedding and writing chunks"
    assert kitchen == [
        (1, 0, 0, None),
        (1, 0, 0, "Parsing"),
        (1, 0, 0, "Splitting into chunks"),
        (1, 0, 5, embedding),
        (1, 2, 5, embedding),
        (1, 4, 5, embedding),
        (1, 5, 5, embedding),
        (2, 0, 0, None),
    ]


def test_every_sync_leaves_its_report_with_the_time_it_finished(lib):
    assert last_sync(lib.indexer.settings) is None
    report = lib.indexer.sync()
    last = last_sync(lib.indexer.settings)
    assert last == report and last.finished_at is not None and last.finished_at.endswith("+00:00")


def test_a_sync_that_dies_mid_course_leaves_the_old_version_and_the_next_sync_finishes(lib, monkeypatch):
    lib.indexer.sync()
    lib.write("kitchen.txt", "Kitchen Basics", SHALLOTS)

    def killed(*args, **kwargs):
        raise KeyboardInterrupt("killed between writing the chunks and flipping the catalog")

    with monkeypatch.context() as patch:
        patch.setattr(lib.index.writer, "_flip_catalog", killed)
        with pytest.raises(KeyboardInterrupt):
            lib.indexer.sync()
    assert lib.texts("onions shallots", course="Kitchen Basics") == [ONIONS]
    report = lib.indexer.sync()
    assert lib.statuses(report) == {"garden.txt": "unchanged", "kitchen.txt": "updated"}
    assert lib.texts("onions shallots", course="Kitchen Basics") == [SHALLOTS]
    assert lib.index.purge_orphans() == 0


def test_a_second_sync_is_refused_while_one_runs(lib):
    running, release = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}

    def hold(event: SyncProgress) -> None:
        if event.done == 0:
            running.set()
            release.wait(timeout=60)

    def first() -> None:
        outcome["report"] = lib.indexer.sync(progress=hold)

    thread = threading.Thread(target=first)
    thread.start()
    try:
        assert running.wait(timeout=60)
        other = Indexer(lib.settings, CourseIndex(lib.settings))
        with pytest.raises(SyncBusy) as caught:
            other.sync(wait=False)
        assert caught.value.status == 409
        # The holder's PID and the lock's path go to the log, never into a response.
        assert (
            str(os.getpid()) not in caught.value.detail
            and str(lib.settings.instance_path) not in caught.value.detail
        )
    finally:
        release.set()
        thread.join()
    assert lib.statuses(outcome["report"]) == {"garden.txt": "added", "kitchen.txt": "added"}
    assert lib.statuses(other.sync(wait=False)) == {"garden.txt": "unchanged", "kitchen.txt": "unchanged"}


def test_a_lock_held_by_a_dead_process_is_not_stale(lib):
    lock = lib.indexer.lock_path
    lock.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys\n"
            f"fd = os.open({str(lock)!r}, os.O_RDWR | os.O_CREAT)\n"
            "fcntl.flock(fd, fcntl.LOCK_EX)\n"
            "print('locked', flush=True)\n"
            "sys.stdin.read()\n",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(SyncBusy):
            lib.indexer.sync(wait=False)
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=30)
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
    report = lib.indexer.sync(wait=False)
    assert lib.statuses(report) == {"garden.txt": "added", "kitchen.txt": "added"}
    assert lock.read_text().strip() == str(os.getpid())


def test_check_upload_refuses_a_title_another_file_holds(lib):
    lib.indexer.sync()
    same_title_other_file = parse_bytes(course_text("Kitchen Basics", SHALLOTS).encode(), "new-kitchen.txt")
    with pytest.raises(AppError) as caught:
        lib.indexer.check_upload(same_title_other_file)
    assert caught.value.status == 409
    assert str(caught.value) == "'Kitchen Basics' is already the course in kitchen.txt"
    # Replacing the same file is an update, and a new title is simply new.
    lib.indexer.check_upload(parse_bytes(course_text("Kitchen Basics", SHALLOTS).encode(), "kitchen.txt"))
    lib.indexer.check_upload(parse_bytes(course_text("Bread Basics", SHALLOTS).encode(), "bread.txt"))
    # A title whose file has left the folder is free to take.
    (lib.docs / "kitchen.txt").unlink()
    lib.indexer.check_upload(same_title_other_file)


def test_check_upload_refuses_a_title_a_file_not_yet_indexed_holds(lib):
    lib.indexer.sync()
    lib.write("by-hand.txt", "Bread Basics", SHALLOTS)  # placed by hand (or just uploaded), not yet synced
    lib.write("garden.txt", "Garden Basics", TOMATOES, ONIONS)  # indexed, changed since: parsed again
    with pytest.raises(AppError) as caught:
        lib.indexer.check_upload(parse_bytes(course_text("Bread Basics", ONIONS).encode(), "bread.txt"))
    assert caught.value.status == 409
    assert str(caught.value) == "'Bread Basics' is already the course in by-hand.txt"
    # The same file again is its replacement; an unreadable file holds no title.
    lib.indexer.check_upload(parse_bytes(course_text("Bread Basics", ONIONS).encode(), "by-hand.txt"))
    (lib.docs / "by-hand.txt").write_bytes(b"")
    lib.indexer.check_upload(parse_bytes(course_text("Bread Basics", ONIONS).encode(), "bread.txt"))


# A sync in a real process, killed by SIGKILL right after one course's catalog flip: its new chunks are
# written and the catalog points at them, but the old chunks are still there and the new ones not flagged.
KILL_AFTER_FLIP = """
import os, signal, sys
from app.config import load_settings
from app.search.index import CourseIndex
from app.search.writer import IndexWriter
from app.library.sync import Indexer

docs, instance, victim = sys.argv[1:4]
flip = IndexWriter._flip_catalog

def flip_then_die(self, course, version, chunk_count):
    record = flip(self, course, version, chunk_count)
    if course.title == victim:
        os.kill(os.getpid(), signal.SIGKILL)
    return record

IndexWriter._flip_catalog = flip_then_die
settings = load_settings({"docs_dir": docs, "instance_path": instance})
Indexer(settings, CourseIndex(settings)).sync()
"""


@pytest.mark.slow
def test_a_sync_killed_between_the_flip_and_the_cleanup_at_50_courses_loses_nothing(lib):
    for number in range(50):
        lib.write(f"course-{number:02d}.txt", f"Course {number:02d}", f"Topic {number} needs its own lesson.")
    lib.write("kitchen.txt", "Kitchen Basics", SHALLOTS)  # the course the killed sync is updating
    lib.indexer.sync()
    lib.write("kitchen.txt", "Kitchen Basics", ONIONS)

    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            KILL_AFTER_FLIP,
            str(lib.docs),
            str(lib.settings.instance_path),
            "Kitchen Basics",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert killed.returncode == -signal.SIGKILL, killed.stderr

    # A serving process's view: every course is there, the updated one in its new version only, nothing twice.
    reader = lib.index
    assert len(reader.courses()) == 52
    hits = reader.search("caramelized onions shallots", k=50)
    kitchen = [hit.text for hit in hits if hit.course_title == "Kitchen Basics"]
    assert kitchen == [ONIONS]
    assert len({(hit.course_title, hit.lesson_number, hit.chunk_index) for hit in hits}) == len(hits)
    assert [hit.text for hit in reader.search("onions", course="Kitchen Basics", k=50)] == [ONIONS]

    # The next sync finds every file current and clears what the killed one left: one live version only.
    report = lib.indexer.sync()
    assert {result.status for result in report.results} == {"unchanged"}
    stored = lib.index.store.run(CONTENT, "get", where={"course_id": "kitchen-basics"}, include=["metadatas"])
    assert len(stored["ids"]) == 1 and stored["metadatas"][0]["live"] is True
    assert not any(entry.settling for entry in lib.index.catalog.entries())
    assert [hit.text for hit in lib.index.search("caramelized onions", k=50) if "onions" in hit.text] == [
        ONIONS
    ]
