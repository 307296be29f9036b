"""Upload names are used as given or refused; replaced files go to the trash; trash names read back whole."""

from __future__ import annotations

import pytest

from app.errors import Conflict
from app.library.trash import Trash
from tests.test_video_index import HEADER, TITLE, write_course
from tests.web.admin_helpers import PASSWORD, Admin, course_text


@pytest.fixture
def admin(make_app):
    """A signed-in admin client on an app with CSRF checks on."""
    admin = Admin(make_app(ADMIN_PASSWORD=PASSWORD))
    assert admin.login().status_code == 303
    return admin


def trash_of(admin) -> Trash:
    """The app's Trash."""
    return admin.app.extensions["services"].trash


def test_a_name_with_a_space_never_replaces_the_file_it_would_be_renamed_to(admin, docs_dir):
    other = course_text("Evil Underscore Course", "the first phrase").encode()
    (docs_dir / "evil_.txt").write_bytes(other)
    response = admin.upload([(course_text("Evil Space Course", "the second phrase").encode(), "evil .txt")])
    assert response.status_code == 200, response.get_data(as_text=True)
    admin.wait_for_job()
    assert (docs_dir / "evil_.txt").read_bytes() == other
    assert "Evil Space Course" in (docs_dir / "evil .txt").read_text()


@pytest.mark.parametrize("name", [" lead.txt", "trail .txt ", "tab\tname.txt"])
def test_a_name_that_safe_name_would_change_is_refused(admin, docs_dir, name):
    before = sorted(path.name for path in docs_dir.iterdir())
    response = admin.upload([(course_text("Odd Name Course", "odd names").encode(), name)])
    assert response.status_code == 422
    assert sorted(path.name for path in docs_dir.iterdir()) == before


def test_a_replaced_file_goes_to_the_trash_like_a_removed_one(admin, docs_dir):
    old = (docs_dir / "rag_in_practice.txt").read_bytes()
    changed = old.decode().replace("Cutting every 500 characters", "Slicing by walrus").encode()
    admin.upload([(changed, "rag_in_practice.txt")])
    admin.wait_for_job()
    [entry] = trash_of(admin).entries()
    assert entry.name == "rag_in_practice.txt"
    assert (trash_of(admin).folder / entry.entry).read_bytes() == old
    assert not [path for path in docs_dir.iterdir() if path.name.startswith(".")]


def test_trash_names_that_start_with_digits_and_a_dash_read_back_whole(admin, docs_dir):
    trash = trash_of(admin)
    for name, title in (("1-numbered.txt", "One Numbered"), ("7-numbered.txt", "Seven Numbered")):
        (docs_dir / name).write_text(course_text(title, "numbers"))
        trash.keep(docs_dir / name, name)
    # The same name twice in one second gets a counter, which must not become part of the name either.
    (docs_dir / "1-numbered.txt").write_text(course_text("One Again", "numbers"))
    trash.keep(docs_dir / "1-numbered.txt", "1-numbered.txt")
    (docs_dir / "numbered.txt").write_text(course_text("Plain Numbered", "numbers"))

    assert sorted(entry.name for entry in trash.entries()) == [
        "1-numbered.txt",
        "1-numbered.txt",
        "7-numbered.txt",
    ]
    seven = next(entry for entry in trash.entries() if entry.name == "7-numbered.txt")
    assert trash.restore(seven.entry) == "7-numbered.txt"
    assert "Seven Numbered" in (docs_dir / "7-numbered.txt").read_text()
    assert "Plain Numbered" in (docs_dir / "numbered.txt").read_text()


def test_an_entry_written_by_the_old_scheme_still_restores(admin, docs_dir):
    trash = trash_of(admin)
    trash.folder.mkdir(parents=True, exist_ok=True)
    (trash.folder / "20250101T000000Z-old_course.txt").write_text(course_text("Old Course", "old things"))
    [entry] = trash.entries()
    assert entry.name == "old_course.txt"
    assert trash.restore(entry.entry) == "old_course.txt"


def test_a_captioned_course_folder_goes_to_the_trash_whole_and_restores_as_a_folder(admin, docs_dir):
    services = admin.app.extensions["services"]
    folder = write_course(docs_dir / "psyc110")
    files = {path.name: path.read_bytes() for path in folder.iterdir()}
    services.indexer.sync()
    [record] = [course for course in services.index.courses() if course.title == TITLE]

    response = admin.post(f"/admin/courses/{record.id}/delete")
    assert response.status_code == 303
    assert not folder.exists(), "the whole folder leaves the docs folder"
    [entry] = trash_of(admin).entries()
    assert entry.name == "psyc110"
    trashed = trash_of(admin).folder / entry.entry
    assert {path.name: path.read_bytes() for path in trashed.iterdir()} == files
    # The next sync does not bring the course back.
    services.indexer.sync()
    assert TITLE not in [course.title for course in services.index.courses()]

    # Restore refuses while the name is taken, and keeps the entry.
    (docs_dir / "psyc110").mkdir()
    with pytest.raises(Conflict):
        trash_of(admin).restore(entry.entry)
    assert trash_of(admin).entries() == [entry]
    (docs_dir / "psyc110").rmdir()

    assert trash_of(admin).restore(entry.entry) == "psyc110"
    assert {path.name: path.read_bytes() for path in folder.iterdir()} == files
    assert trash_of(admin).entries() == []
    assert not [path for path in docs_dir.iterdir() if path.name.startswith(".")]
    services.indexer.sync()
    assert TITLE in [course.title for course in services.index.courses()]


def test_a_trashed_folder_is_checked_under_its_own_name_not_its_trash_entry(admin, docs_dir):
    # Without a Course Title the folder's name is the title: "psyc110" reads as "Psyc110" in the docs
    # folder, so restoring it must be refused while another file holds that title.
    folder = write_course(docs_dir / "psyc110")
    (folder / "course.txt").write_text(HEADER.replace(f"Course Title: {TITLE}\n", ""))
    trash = trash_of(admin)
    trash.keep(folder, "psyc110")
    (docs_dir / "other.txt").write_text(course_text("Psyc110", "the same title"))
    [entry] = trash.entries()
    with pytest.raises(Conflict, match="Psyc110"):
        trash.restore(entry.entry)
    assert not folder.exists() and trash.entries() == [entry]
