"""Uploads: each format is checked, saved atomically and indexed; refused files leave nothing behind."""

from __future__ import annotations

import errno
import fcntl
import io
import os

import pytest
from werkzeug.datastructures import FileStorage

from app.web.uploads import safe_name, save_uploads
from tests.helpers import make_docx, make_pdf
from tests.web.admin_helpers import (
    PASSWORD,
    Admin,
    course_text,
    course_titles,
    docs_snapshot,
    index_snapshot,
    search_texts,
)


def held_by_another(folder) -> bool:
    """True when the folder's lock is held, probed the way another process would (without waiting)."""
    fd = os.open(folder, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


@pytest.fixture
def admin(make_app):
    """A signed-in admin client on an app with CSRF checks on."""
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    assert admin.login().status_code == 303
    return admin


def _document(kind: str, tmp_path, text: str) -> bytes:
    """The bytes of a course document of one kind."""
    if kind == "txt":
        return text.encode("utf-8")
    maker = make_pdf if kind == "pdf" else make_docx
    return maker(tmp_path / f"source.{kind}", text).read_bytes()


@pytest.mark.parametrize("kind", ["txt", "pdf", "docx"])
def test_each_format_is_saved_indexed_and_searchable(admin, docs_dir, tmp_path, kind):
    phrase = f"the marmalade lighthouse protocol ({kind})"
    data = _document(kind, tmp_path, course_text(f"Lighthouse Engineering {kind.upper()}", phrase))
    response = admin.upload([(data, f"lighthouse.{kind}")])
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert f"lighthouse.{kind}" in html and "Refused" not in html
    assert (docs_dir / f"lighthouse.{kind}").read_bytes() == data
    report = admin.wait_for_job()
    assert report["summary"]["added"] == 1
    assert f"Lighthouse Engineering {kind.upper()}" in course_titles(admin.client)
    assert any("marmalade lighthouse protocol" in text for text in search_texts(admin.client, phrase))


def assert_back_on_the_admin_page(admin, response, message: str) -> None:
    """A refused form redirects to the admin page (post/redirect/get), which shows the message once."""
    assert response.status_code == 303 and response.headers["Location"] == "/admin"
    assert message in admin.client.get("/admin").get_data(as_text=True)


def test_htmx_upload_starts_the_sync_before_answering(admin, docs_dir):
    data = course_text("Beekeeping Basics", "the waggle dance of honey bees").encode()
    response = admin.upload([(data, "bees.txt")], htmx=True)
    html = response.get_data(as_text=True)
    status = admin.jobs.status()
    assert response.status_code == 200
    # The job was recorded before the answer left, so the first poll already sees it.
    assert status is not None and status.state in ("running", "done")
    # The fragment carries the polling progress bar of the job that is already recorded.
    assert 'id="sync-progress"' in html and 'hx-get="/admin/sync/status"' in html and "every 1s" in html
    assert "<progress" in html
    admin.wait_for_job()
    assert "Beekeeping Basics" in course_titles(admin.client)


def test_several_files_at_once_keep_the_good_and_list_the_bad(admin, docs_dir):
    good = course_text("Knot Tying", "the bowline knot").encode()
    response = admin.upload([(good, "knots.txt"), (b"\x7fELF\x02\x01\x01" + bytes(64), "tool.pdf")])
    html = response.get_data(as_text=True)
    assert response.status_code == 200
    assert "knots.txt" in html and "tool.pdf" in html and "ELF" in html
    names = {path.name for path in docs_dir.iterdir()}
    assert "knots.txt" in names and "tool.pdf" not in names
    assert not [name for name in names if name.startswith(".") or name.endswith(".part")]
    admin.wait_for_job()
    assert "Knot Tying" in course_titles(admin.client)


def test_replacing_the_same_file_is_an_update(admin, docs_dir):
    text = (docs_dir / "rag_in_practice.txt").read_text()
    old_sentence = "Cutting every 500 characters is simple"
    changed = text.replace(old_sentence, "Slicing by the turquoise walrus rule is simple")
    response = admin.upload([(changed.encode(), "rag_in_practice.txt")])
    assert "replaces the previous file" in response.get_data(as_text=True)
    report = admin.wait_for_job()
    assert report["summary"]["updated"] == 1
    texts = search_texts(admin.client, "turquoise walrus rule")
    assert any("turquoise walrus" in t for t in texts)
    assert not any(old_sentence in t for t in search_texts(admin.client, old_sentence))


def _corrupt_pdf(tmp_path) -> bytes:
    """A PDF cut off half-way: the header is right, the body is not."""
    data = make_pdf(tmp_path / "whole.pdf", course_text("Broken", "nothing")).read_bytes()
    return data[:200]


REFUSALS = {
    "wrong extension": (lambda tmp: b"Course Title: Notes\n\nLesson 1: A\nText.\n", "notes.md", "accepted"),
    "executable renamed .pdf": (lambda tmp: b"\x7fELF\x02\x01\x01\x00" + bytes(200), "setup.pdf", "ELF"),
    "corrupt pdf": (_corrupt_pdf, "broken.pdf", "PDF"),
    "empty file": (lambda tmp: b"", "empty.txt", "empty"),
    "path in the name": (
        lambda tmp: b"Course Title: Escape\n\nLesson 1: A\nText here.\n",
        "../../x.txt",
        "folder",
    ),
    # Werkzeug's multipart parser reads a backslash as an escape: these arrive as "....x.txt", "C:docsx.txt".
    "backslash path": (
        lambda tmp: course_text("Escape", "text").encode(),
        "..\\..\\x.txt",
        "starts with a dot",
    ),
    "windows path": (lambda tmp: course_text("Escape", "text").encode(), "C:\\docs\\x.txt", "rename it"),
    "absolute path": (lambda tmp: course_text("Escape", "text").encode(), "/tmp/x.txt", "folder"),
    "dot-dot inside": (lambda tmp: course_text("Escape", "text").encode(), "a/../../x.txt", "folder"),
    # These three pass only through secure_filename's eyes: without it they would be saved as given.
    "markup in the name": (lambda tmp: course_text("Markup", "text").encode(), "a<b>;c.txt", "rename it"),
    "full-width name": (lambda tmp: course_text("Wide", "text").encode(), "ｘ．txt", "for example to x.txt"),
    "control character": (lambda tmp: course_text("Control", "text").encode(), "x\x07y.txt", "rename it"),
    "hidden file": (lambda tmp: course_text("Hidden", "text").encode(), ".hidden.txt", "starts with a dot"),
    "overlong name": (
        lambda tmp: course_text("Long", "text").encode(),
        "n" * 246 + ".txt",
        "longer than 120",
    ),
    "duplicate title": (
        lambda tmp: course_text("Vector Databases from Scratch", "a copy").encode(),
        "copy_of_vectors.txt",
        "already the course in vector_databases.txt",
    ),
}


@pytest.mark.parametrize("case", list(REFUSALS))
@pytest.mark.parametrize("htmx", [False, True], ids=["page", "htmx"])
def test_refused_uploads_change_nothing(admin, docs_dir, tmp_path, case, htmx):
    make, name, reason = REFUSALS[case]
    docs_before, index_before = docs_snapshot(docs_dir), index_snapshot(admin.app)
    response = admin.upload([(make(tmp_path), name)], htmx=htmx)
    html = response.get_data(as_text=True)
    assert response.status_code == (200 if htmx else 422)
    assert "Refused 1 file" in html and reason in html
    assert docs_snapshot(docs_dir) == docs_before
    assert index_snapshot(admin.app) == index_before
    assert admin.jobs.status() is None  # no sync started
    assert not (docs_dir.parent / "x.txt").exists() and not (tmp_path.parent / "x.txt").exists()


def test_a_full_width_name_never_replaces_the_course_file_it_normalizes_to(admin, docs_dir):
    (docs_dir / "x.txt").write_text(course_text("Exes", "the letter x"))
    before = docs_snapshot(docs_dir)
    response = admin.upload([(course_text("Wide Letters", "wide").encode(), "ｘ．txt")])
    assert response.status_code == 422 and "rename it" in response.get_data(as_text=True)
    assert docs_snapshot(docs_dir) == before


def test_a_full_disk_saves_no_file_of_the_batch_and_starts_no_sync(admin, docs_dir, monkeypatch):
    from app.library import uploads

    before = docs_snapshot(docs_dir)
    staged: list = []
    real_stage = uploads.stage_file

    def disk_fills_up(path, data):
        if staged:
            raise OSError(errno.ENOSPC, "No space left on device")
        staged.append(real_stage(path, data))
        return staged[-1]

    monkeypatch.setattr(uploads, "stage_file", disk_fills_up)
    response = admin.upload(
        [
            (course_text("Origami Folding", "the crane fold").encode(), "origami.txt"),
            (course_text("Kite Flying", "the line").encode(), "kites.txt"),
        ]
    )
    assert_back_on_the_admin_page(admin, response, "could not be saved (No space left on device); no file")
    assert docs_snapshot(docs_dir) == before  # the first file's staged copy is gone too
    assert not any(path.name.endswith(".part") for path in docs_dir.iterdir())
    assert admin.jobs.status() is None


def test_files_are_parsed_before_the_docs_folder_lock_is_taken(docs_dir, monkeypatch):
    from app.web import uploads

    locked_while_parsing: list[bool] = []
    real_parse = uploads.parse_bytes

    def parse_and_probe(data, name):
        locked_while_parsing.append(held_by_another(docs_dir))
        return real_parse(data, name)

    monkeypatch.setattr(uploads, "parse_bytes", parse_and_probe)
    first = FileStorage(io.BytesIO(course_text("Origami Folding", "the crane fold").encode()), "origami.txt")
    outcome = save_uploads([first], docs_dir, max_bytes=10_000, check_upload=lambda course: None)
    assert locked_while_parsing == [False] and [item.file for item in outcome.accepted] == ["origami.txt"]


def test_oversized_upload_is_413_with_a_message(make_app, docs_dir):
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD, MAX_UPLOAD_MB=0.01))
    admin.login()
    docs_before = docs_snapshot(docs_dir)
    big = course_text("Huge Course", "padding " * 3000).encode()
    assert_back_on_the_admin_page(admin, admin.upload([(big, "huge.txt")]), "larger than the 10 KB limit")
    htmx = admin.upload([(big, "huge.txt")], htmx=True)
    assert "larger than the 10 KB limit" in htmx.get_data(as_text=True)
    assert docs_snapshot(docs_dir) == docs_before
    assert admin.jobs.status() is None


def test_upload_without_files_is_a_bad_request(admin):
    response = admin.post("/admin/upload", {}, content_type="multipart/form-data")
    assert_back_on_the_admin_page(admin, response, "Choose at least one")


def test_a_file_over_the_limit_is_refused_even_inside_a_small_request(docs_dir):
    # A body sent without a length is cut off by Werkzeug; this checks the per-file limit behind it.
    outcome = save_uploads(
        [FileStorage(io.BytesIO(b"x" * 101), "big.txt")], docs_dir, max_bytes=100, check_upload=lambda c: None
    )
    assert [item.reason for item in outcome.refused] == ["the file is larger than the 100 bytes limit"]
    assert not (docs_dir / "big.txt").exists()


def test_a_title_held_by_a_file_not_yet_indexed_is_refused(admin, docs_dir):
    # Placed by hand (or uploaded a moment ago while the sync still runs): in the folder, not in the index.
    (docs_dir / "origami.txt").write_text(course_text("Origami Folding", "the crane fold"))
    docs_before, index_before = docs_snapshot(docs_dir), index_snapshot(admin.app)
    data = course_text("Origami Folding", "the waterbomb base").encode()
    response = admin.upload([(data, "paper_folding.txt")])
    html = response.get_data(as_text=True)
    assert response.status_code == 422
    assert "Refused 1 file" in html and "already the course in origami.txt" in html
    assert docs_snapshot(docs_dir) == docs_before
    assert index_snapshot(admin.app) == index_before
    assert admin.jobs.status() is None


def test_a_readme_txt_upload_is_indexed_like_any_course(admin, docs_dir):
    data = course_text("Reading Room Etiquette", "the quiet carrel reservation rule").encode()
    response = admin.upload([(data, "README.TXT")])
    assert response.status_code == 200 and "Refused" not in response.get_data(as_text=True)
    report = admin.wait_for_job()
    assert report["summary"]["added"] == 1
    assert "Reading Room Etiquette" in course_titles(admin.client)
    texts = search_texts(admin.client, "quiet carrel reservation rule")
    assert any("quiet carrel reservation" in text for text in texts)


def test_uploads_check_and_write_while_holding_the_docs_folder_lock(docs_dir):
    seen: list[bool] = []

    def check(course) -> None:
        """Record whether another holder could take the folder lock now (it must not)."""
        seen.append(held_by_another(docs_dir))

    first = FileStorage(io.BytesIO(course_text("Origami Folding", "the crane fold").encode()), "origami.txt")
    outcome = save_uploads([first], docs_dir, max_bytes=10_000, check_upload=check)
    assert seen == [True] and [item.file for item in outcome.accepted] == ["origami.txt"]
    # Released afterwards: the next upload takes it at once.
    fd = os.open(docs_dir, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)


def test_a_rename_that_fails_mid_batch_puts_back_every_file_it_replaced_or_added(docs_dir):
    from app.errors import AppError

    old_origami = course_text("Origami Folding", "the crane fold").encode()
    (docs_dir / "origami.txt").write_bytes(old_origami)
    (docs_dir / "kites.txt").mkdir()  # a folder where the batch's third file should go: its rename fails
    before = sorted(path.name for path in docs_dir.iterdir())
    batch = [
        FileStorage(io.BytesIO(course_text("Origami Folding", "the waterbomb base").encode()), "origami.txt"),
        FileStorage(io.BytesIO(course_text("Beekeeping Basics", "the waggle dance").encode()), "bees.txt"),
        FileStorage(io.BytesIO(course_text("Kite Flying", "the line").encode()), "kites.txt"),
    ]
    with pytest.raises(AppError) as caught:
        save_uploads(batch, docs_dir, max_bytes=10_000, check_upload=lambda course: None)
    assert "could not be saved" in caught.value.message and "no file was changed" in caught.value.message
    assert sorted(path.name for path in docs_dir.iterdir()) == before  # no bees.txt, no staged or backup copy
    assert (docs_dir / "origami.txt").read_bytes() == old_origami
    assert (docs_dir / "kites.txt").is_dir()


@pytest.mark.parametrize("name", ["..\\x.txt", "a\\b.txt", "C:\\docs\\x.txt", "\\\\server\\share\\x.txt"])
def test_a_backslash_path_is_refused_as_a_path_not_stripped_to_a_name(name):
    # Over HTTP Werkzeug's multipart parser eats backslashes; a name reaching safe_name another way must not.
    with pytest.raises(ValueError, match="folder parts"):
        safe_name(name)


@pytest.mark.parametrize("name", ["notes.txt", "Intro to SQL.pdf", "week-1_v2.docx"])
def test_a_plain_name_is_kept_with_spaces_as_underscores(name):
    assert safe_name(name) == name.replace(" ", "_")
