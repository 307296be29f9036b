"""File primitives: a lock never turns a missing folder into a file."""

from __future__ import annotations

import pytest

from app.files import locked, locked_folder


def test_locking_a_missing_folder_refuses_instead_of_creating_a_file(tmp_path):
    folder = tmp_path / "docs"
    with pytest.raises(FileNotFoundError, match="does not exist"), locked(folder):
        pass
    assert not folder.exists()


def test_a_lock_file_is_created_when_missing(tmp_path):
    lock = tmp_path / "state" / "sync.lock"
    with locked(lock) as fd:
        assert fd >= 0
    assert lock.is_file()


def test_locked_folder_creates_the_folder_it_locks(tmp_path):
    folder = tmp_path / "docs"
    with locked_folder(folder):
        assert folder.is_dir()
