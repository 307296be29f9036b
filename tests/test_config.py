"""Settings: a bad value fails in one line naming the variable; blanks are unset; the secret key persists."""

from __future__ import annotations

import pytest

from app.config import ConfigError, Settings, load_settings

SETTING_NAMES = (
    "CHUNK_SIZE",
    "CHUNK_OVERLAP",
    "ANTHROPIC_API_KEY",
    "CHROMA_HOST",
    "SECRET_KEY",
    "ANTHROPIC_TIMEOUT",
    "ADMIN_PASSWORD",
)


@pytest.fixture(autouse=True)
def clean_environment(tmp_path, monkeypatch):
    """Run each test in an empty folder (no stray .env) with none of the variables under test set."""
    monkeypatch.chdir(tmp_path)
    for name in SETTING_NAMES:
        monkeypatch.delenv(name, raising=False)


def config_error(**overrides) -> str:
    """Load settings that must fail and return the one-line message."""
    with pytest.raises(ConfigError) as caught:
        load_settings(overrides)
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_a_non_number_names_the_variable():
    message = config_error(CHUNK_SIZE="abc")
    assert message.startswith("Invalid setting CHUNK_SIZE:")


def test_an_invalid_environment_variable_names_the_variable(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_TIMEOUT", "-5")
    assert "ANTHROPIC_TIMEOUT" in config_error()


def test_an_overlap_as_large_as_the_chunk_is_refused():
    message = config_error(CHUNK_SIZE=500, CHUNK_OVERLAP=500)
    assert "CHUNK_OVERLAP" in message and "CHUNK_SIZE" in message


def test_a_config_error_exits_instead_of_raising_a_traceback():
    # ConfigError is a SystemExit: Python prints just the message and exits 1.
    with pytest.raises(SystemExit) as caught:
        load_settings({"MAX_RESULTS": "many"})
    assert caught.value.code == str(caught.value) and "MAX_RESULTS" in caught.value.code


def test_dotenv_is_read_and_the_environment_wins(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("CHUNK_SIZE=500\nCHUNK_OVERLAP=50\n")
    monkeypatch.setenv("CHUNK_OVERLAP", "70")
    settings = load_settings()
    assert (settings.chunk_size, settings.chunk_overlap) == (500, 70)


@pytest.mark.parametrize("blank", ["", "   "])
def test_blank_values_count_as_unset(monkeypatch, blank):
    for name in ("ANTHROPIC_API_KEY", "CHROMA_HOST", "SECRET_KEY"):
        monkeypatch.setenv(name, blank)
    settings = load_settings()
    assert settings.anthropic_api_key is None and settings.mode == "extractive"
    assert settings.chroma_host is None and not settings.uses_chroma_server
    assert settings.secret_key is None


def test_a_blank_line_in_dotenv_is_unset(tmp_path):
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=\nADMIN_PASSWORD=\n")
    settings = load_settings()
    assert settings.anthropic_api_key is None and settings.admin_password is None


def test_the_secret_key_is_generated_once_and_reused(tmp_path):
    instance = tmp_path / "instance"
    first = Settings(instance_path=instance).ensure_secret_key()
    key_file = instance / "secret_key"
    assert len(first) >= 32 and key_file.read_text().strip() == first
    assert key_file.stat().st_mode & 0o077 == 0, "the key file must be private"
    # A restart (a new Settings) reads the same key rather than signing cookies with a new one.
    assert Settings(instance_path=instance).ensure_secret_key() == first


def test_a_set_secret_key_wins_and_writes_nothing(tmp_path):
    instance = tmp_path / "instance"
    assert Settings(instance_path=instance, secret_key="from-env").ensure_secret_key() == "from-env"
    assert not (instance / "secret_key").exists()


def test_apps_built_without_a_secret_key_share_the_generated_one(tmp_path):
    from app import create_app

    config = {"INSTANCE_PATH": str(tmp_path / "instance"), "SECRET_KEY": None, "DOCS_DIR": str(tmp_path)}
    first, second = create_app(config), create_app(config)
    assert first.secret_key and first.secret_key == second.secret_key
    assert (tmp_path / "instance" / "secret_key").read_text().strip() == first.secret_key
