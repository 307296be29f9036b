"""Settings: a bad value fails in one line naming the variable; blanks are unset; the secret key persists."""

from __future__ import annotations

import errno
import multiprocessing
import re
import tempfile
import threading
from pathlib import Path

import pytest

from app.config import ENV_FILE_VARIABLE, ConfigError, Settings, load_settings

RACERS = 16


@pytest.fixture(autouse=True)
def clean_environment(tmp_path, monkeypatch):
    """Run each test in an empty folder; conftest has already dropped the caller's settings."""
    monkeypatch.chdir(tmp_path)


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
    monkeypatch.delenv(ENV_FILE_VARIABLE)  # conftest turns .env off; an operator's app reads it
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


def test_a_blank_line_in_dotenv_is_unset(tmp_path, monkeypatch):
    monkeypatch.delenv(ENV_FILE_VARIABLE)
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=\nADMIN_PASSWORD=\n")
    settings = load_settings()
    assert settings.anthropic_api_key is None and settings.admin_password is None


def test_the_env_file_variable_names_another_file_or_none(tmp_path, monkeypatch):
    (tmp_path / ".env").write_text("MAX_RESULTS=7\n")
    (tmp_path / "staging.env").write_text("MAX_RESULTS=9\n")
    monkeypatch.setenv(ENV_FILE_VARIABLE, str(tmp_path / "staging.env"))
    assert load_settings().max_results == 9
    monkeypatch.setenv(ENV_FILE_VARIABLE, "")
    assert load_settings().max_results == 5
    monkeypatch.delenv(ENV_FILE_VARIABLE)
    assert load_settings().max_results == 7


def test_tests_ignore_a_developers_dotenv(tmp_path):
    # conftest leaves ENV_FILE_VARIABLE empty, so an API key in a developer's .env cannot reach a test app.
    (tmp_path / ".env").write_text("ANTHROPIC_API_KEY=sk-from-a-developer\n")
    assert load_settings().anthropic_api_key is None


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


def _generate_key(instance: str, start: threading.Barrier | None = None) -> str:
    """Wait for the other racers (when given a barrier), then get the instance's secret key."""
    if start is not None:
        start.wait()
    return Settings(instance_path=instance).ensure_secret_key()


def test_threads_racing_on_a_fresh_instance_agree_on_one_key(tmp_path):
    instance = tmp_path / "instance"
    start = threading.Barrier(RACERS)
    keys: list[str] = []
    threads = [
        threading.Thread(target=lambda: keys.append(_generate_key(str(instance), start)))
        for _ in range(RACERS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(keys) == RACERS and len(set(keys)) == 1 and keys[0]
    assert (instance / "secret_key").read_text() == keys[0]
    assert sorted(path.name for path in instance.iterdir()) == ["secret_key"], "no temp files left behind"


def test_worker_processes_racing_on_a_fresh_instance_agree_on_one_key(tmp_path):
    instance = tmp_path / "instance"
    # Fresh interpreters, as gunicorn workers on a fresh instance folder would be.
    with multiprocessing.get_context("spawn").Pool(4) as pool:
        keys = pool.map(_generate_key, [str(instance)] * 8)
    assert len(set(keys)) == 1 and keys[0]
    assert (instance / "secret_key").read_text() == keys[0]
    assert (instance / "secret_key").stat().st_mode & 0o077 == 0


def test_an_empty_key_file_is_refused_not_used(tmp_path):
    instance = tmp_path / "instance"
    instance.mkdir()
    (instance / "secret_key").write_text("")
    with pytest.raises(ConfigError) as caught:
        Settings(instance_path=instance).ensure_secret_key()
    assert "SECRET_KEY" in str(caught.value) and "secret_key is empty" in str(caught.value)


@pytest.mark.parametrize(
    ("variable", "value"),
    [("RATELIMIT_ASK", "thirty a minute"), ("RATELIMIT_LOGIN", "5 per fortnight"), ("RATELIMIT_ASK", "30")],
)
def test_a_malformed_rate_limit_stops_the_app_instead_of_turning_the_limit_off(variable, value):
    message = config_error(**{variable: value})
    assert message.startswith(f"Invalid setting {variable}: '{value}' is not a rate limit")


def test_a_blank_rate_limit_variable_means_the_default(monkeypatch):
    monkeypatch.setenv("RATELIMIT_ASK", "")
    assert load_settings().ratelimit_ask == "30 per minute"


def test_well_formed_rate_limits_are_kept_as_written():
    settings = load_settings({"RATELIMIT_ASK": "10/minute;100/day", "RATELIMIT_LOGIN": "3 per hour"})
    assert (settings.ratelimit_ask, settings.ratelimit_login) == ("10/minute;100/day", "3 per hour")


@pytest.mark.parametrize("uri", ["redis//localhost", "postgres://db", "memory"])
def test_an_unusable_rate_limit_store_is_refused(uri):
    assert config_error(RATELIMIT_STORAGE_URI=uri).startswith("Invalid setting RATELIMIT_STORAGE_URI:")


def test_a_full_disk_at_first_start_is_one_line_not_a_traceback(tmp_path, monkeypatch):
    def disk_full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tempfile, "mkstemp", disk_full)
    with pytest.raises(ConfigError) as caught:
        Settings(instance_path=tmp_path / "instance").ensure_secret_key()
    assert str(caught.value).startswith("Invalid setting INSTANCE_PATH: cannot write")
    assert "No space left on device" in str(caught.value)


def test_the_readme_settings_table_lists_exactly_the_validated_settings():
    readme = (Path(__file__).parents[1] / "README.md").read_text()
    table = re.findall(r"^\| `([A-Z_]+)`(?:, `([A-Z_]+)`)? \|", readme, flags=re.MULTILINE)
    documented = {name for row in table for name in row if name}
    served_by_gunicorn = {"PORT", "BIND", "WEB_CONCURRENCY"}
    assert documented - served_by_gunicorn == {name.upper() for name in Settings.model_fields}


def test_env_example_lists_every_setting():
    example = (Path(__file__).parents[1] / ".env.example").read_text()
    listed = set(re.findall(r"^# ([A-Z_]+)=", example, flags=re.MULTILINE))
    assert {name.upper() for name in Settings.model_fields} <= listed


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("RATELIMIT_ASK", "0 per minute"),
        ("RATELIMIT_LOGIN", "5 per minute;0/day"),
        ("RATELIMIT_ASK", "0/hour"),
    ],
)
def test_a_rate_limit_that_allows_nothing_is_refused(variable, value):
    message = config_error(**{variable: value})
    assert message.startswith(f"Invalid setting {variable}: '{value}' allows no requests")
    assert "\n" not in message
