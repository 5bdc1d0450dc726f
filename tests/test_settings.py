"""Settings: every variable is read, defaults are as documented, and a bad value names its variable."""

from __future__ import annotations

import re
from pathlib import Path

import platformdirs
import pytest

from api.settings import SETTINGS, SettingInfo, Settings
from models import InvalidInput

HOME = {"RECALL_HOME": "/tmp/recall-settings-test"}

# The defaults README.md and the help texts give (home and model_cache are worked out in from_env).
DOCUMENTED = {
    "RECALL_HOME": None, "RECALL_EMBEDDER": "e5", "RECALL_MODEL_CACHE": None,
    "RECALL_MAX_FILE_MB": 50, "RECALL_BATCH_SESSIONS": 32, "RECALL_LOCK_WAIT": 30,
    "RECALL_API_TOKEN": None, "RECALL_ALLOWED_HOSTS": None, "RECALL_MAX_BODY_MB": 20,
    "RECALL_MAX_QUERY_CHARS": 2000, "RECALL_REFUSALS_PER_MINUTE": 60,
    "RECALL_KEEP_REPLACED_DAYS": 30,
    "RECALL_RANKER": "learned",
    "RECALL_HTTP_HEADER_TIMEOUT": 10, "RECALL_HTTP_BODY_TIMEOUT": 60, "RECALL_HTTP_KEEP_ALIVE": 5,
    "RECALL_HTTP_MAX_CONNECTIONS": 100, "RECALL_HTTP_MAX_HEADER_KB": 64, "RECALL_LLM_URL": None,
    "RECALL_LLM_MODEL": "gpt-4o-mini", "RECALL_LLM_API_KEY": None, "RECALL_LLM_TIMEOUT": 60,
    "RECALL_LIVE_SUMMARY": "extractive", "RECALL_RETENTION_FULL_DAYS": None,
    "RECALL_RETENTION_SUMMARY_DAYS": None, "RECALL_RELEVANCE_DECAY_RATE": 0.05,
    "RECALL_RELEVANCE_FLOOR": 0.1, "RECALL_RELEVANCE_BOOST": 0.5,
    "RECALL_RELEVANCE_MAX_MEMORIES": None, "RECALL_EMBED_THREADS": 0, "RECALL_STORE": None,
    "RECALL_S3_ENDPOINT": None, "RECALL_S3_REGION": "us-east-1", "RECALL_S3_ACCESS_KEY": None,
    "RECALL_S3_SECRET_KEY": None, "RECALL_S3_VERIFY_TLS": "true", "RECALL_LEASE_SECONDS": 60,
    "RECALL_FOLLOW_INTERVAL": 1, "RECALL_RATE_LIMIT": 0, "RECALL_RATE_BURST": 20,
    "RECALL_TENANT": "default",
}

POSITIVE, NOT_NEGATIVE, WHOLE, NUMBER = (
    "must be positive", "must not be negative", "must be a whole number", "must be a number")
BAD = [
    ("RECALL_MAX_FILE_MB", "0", POSITIVE), ("RECALL_MAX_FILE_MB", "big", NUMBER),
    ("RECALL_BATCH_SESSIONS", "0", POSITIVE), ("RECALL_BATCH_SESSIONS", "lots", WHOLE),
    ("RECALL_BATCH_SESSIONS", "1.5", WHOLE),
    ("RECALL_LOCK_WAIT", "-1", NOT_NEGATIVE), ("RECALL_LOCK_WAIT", "soon", NUMBER),
    ("RECALL_MAX_BODY_MB", "-2", POSITIVE), ("RECALL_MAX_QUERY_CHARS", "2k", WHOLE),
    ("RECALL_MAX_QUERY_CHARS", "0", POSITIVE), ("RECALL_HTTP_HEADER_TIMEOUT", "0", POSITIVE),
    ("RECALL_HTTP_BODY_TIMEOUT", "-5", POSITIVE), ("RECALL_HTTP_KEEP_ALIVE", "2.5", WHOLE),
    ("RECALL_HTTP_KEEP_ALIVE", "0", POSITIVE), ("RECALL_HTTP_MAX_CONNECTIONS", "0", POSITIVE),
    ("RECALL_HTTP_MAX_HEADER_KB", "-1", POSITIVE), ("RECALL_LLM_TIMEOUT", "0", POSITIVE),
    ("RECALL_LLM_TIMEOUT", "1m", NUMBER),
    ("RECALL_LIVE_SUMMARY", "abstractive", "must be 'extractive' or 'llm'"),
    ("RECALL_RANKER", "smart", "must be 'learned', 'strict' or 'fused'"),
    ("RECALL_RETENTION_FULL_DAYS", "-1", NOT_NEGATIVE), ("RECALL_RETENTION_FULL_DAYS", "soon", WHOLE),
    ("RECALL_RETENTION_SUMMARY_DAYS", "-7", NOT_NEGATIVE),
    ("RECALL_RELEVANCE_DECAY_RATE", "1", "must be at least 0 and below 1"),
    ("RECALL_RELEVANCE_DECAY_RATE", "-0.1", "must be at least 0 and below 1"),
    ("RECALL_RELEVANCE_FLOOR", "1.5", "must be at least 0 and below 1"),
    ("RECALL_RELEVANCE_FLOOR", "high", NUMBER),
    ("RECALL_RELEVANCE_BOOST", "2", "must be between 0 and 1"),
    ("RECALL_RELEVANCE_MAX_MEMORIES", "-3", NOT_NEGATIVE),
    ("RECALL_EMBED_THREADS", "-1", NOT_NEGATIVE), ("RECALL_EMBED_THREADS", "two", WHOLE),
    ("RECALL_STORE", "/mnt/bucket", "must be an s3://bucket/prefix address"),
    ("RECALL_LEASE_SECONDS", "0", POSITIVE), ("RECALL_FOLLOW_INTERVAL", "-1", POSITIVE),
    ("RECALL_RATE_LIMIT", "-1", NOT_NEGATIVE), ("RECALL_RATE_BURST", "0", POSITIVE),
    ("RECALL_REFUSALS_PER_MINUTE", "0", POSITIVE), ("RECALL_REFUSALS_PER_MINUTE", "1.5", WHOLE),
    ("RECALL_KEEP_REPLACED_DAYS", "-1", NOT_NEGATIVE), ("RECALL_KEEP_REPLACED_DAYS", "a week", NUMBER),
    ("RECALL_TENANT", "../other", "must be 1-63 lowercase letters, digits, '-' or '_'"),
    ("RECALL_TENANT", "Platform", "must be 1-63 lowercase letters, digits, '-' or '_'"),
]


def setting_error(env: dict[str, str], **overrides: object) -> str:
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env(env, **overrides)
    return caught.value.detail


@pytest.mark.parametrize(("var", "value", "rule"), BAD)
def test_a_bad_value_names_its_variable_the_value_and_the_rule(var: str, value: str,
                                                               rule: str) -> None:
    assert setting_error({**HOME, var: value}) == f"{var} {rule} (got {value!r}); see `recall settings`"


def test_every_setting_that_can_be_bad_is_tried() -> None:
    # Only free text and paths have no bad value.
    can_be_bad = {s.env for s in SETTINGS if s.check or s.kind in (int, float)}
    assert {var for var, _, _ in BAD} == can_be_bad
    assert {s.kind for s in SETTINGS if s.env not in can_be_bad} == {str, Path}


def test_a_bad_override_names_the_variable_too() -> None:
    assert setting_error(HOME, lock_wait=-1).startswith("RECALL_LOCK_WAIT must not be negative (got '-1')")


SAMPLES = {str: ("custom", "custom"), int: ("7", 7), float: ("0.25", 0.25),
           Path: ("~/elsewhere", Path("~/elsewhere").expanduser())}


@pytest.mark.parametrize("setting", SETTINGS, ids=lambda s: s.env)
def test_every_variable_is_read(setting: SettingInfo) -> None:
    raw, expected = SAMPLES[setting.kind]
    env = {setting.env: raw}
    if setting.name == "live_summary":  # a fixed set of values, and 'llm' needs an endpoint
        raw = expected = "llm"
        env = {setting.env: raw, "RECALL_LLM_URL": "http://localhost:1/v1"}
    if setting.name == "store":  # an s3:// address
        raw = expected = "s3://bucket/prefix"
        env = {setting.env: raw}
    if setting.name == "ranker":  # a fixed set of values
        raw = expected = "fused"
        env = {setting.env: raw}
    value = getattr(Settings.from_env(env), setting.name)
    assert value == expected and value != setting.default


def test_defaults_are_the_documented_ones() -> None:
    assert {s.env: s.default for s in SETTINGS} == DOCUMENTED
    settings = Settings.from_env({})
    assert settings.home == Path(platformdirs.user_data_dir("recall", appauthor=False))
    assert settings.model_cache == settings.home / "models"
    for s in SETTINGS:
        if s.name not in ("home", "model_cache"):
            assert getattr(settings, s.name) == s.default, s.env


def test_an_empty_variable_counts_as_unset_and_none_overrides_are_ignored() -> None:
    env = {**HOME, "RECALL_LOCK_WAIT": "", "RECALL_API_TOKEN": "", "RECALL_EMBEDDER": "minilm"}
    settings = Settings.from_env(env, embedder=None, lock_wait=None)
    assert (settings.lock_wait, settings.api_token, settings.embedder) == (30.0, None, "minilm")
    assert Settings.from_env(env, embedder="hash", lock_wait=2).lock_wait == 2.0


@pytest.mark.parametrize(("env", "names"), [
    ({"RECALL_RETENTION_FULL_DAYS": "30", "RECALL_RETENTION_SUMMARY_DAYS": "7"},
     ["RECALL_RETENTION_SUMMARY_DAYS", "RECALL_RETENTION_FULL_DAYS"]),
    ({"RECALL_LIVE_SUMMARY": "llm"}, ["RECALL_LIVE_SUMMARY", "RECALL_LLM_URL"]),
])
def test_rules_across_two_settings_name_both(env: dict[str, str], names: list[str]) -> None:
    assert re.findall(r"RECALL_[A-Z_]+", setting_error({**HOME, **env})) == names


def test_rules_across_two_settings_accept_valid_pairs() -> None:
    settings = Settings.from_env({**HOME, "RECALL_RETENTION_FULL_DAYS": "7",
                                  "RECALL_RETENTION_SUMMARY_DAYS": "7", "RECALL_LIVE_SUMMARY": "llm",
                                  "RECALL_LLM_URL": "http://localhost:1/v1"})
    assert (settings.retention_summary_days, settings.live_summary) == (7, "llm")


def test_recall_settings_never_prints_a_secret(recall, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RECALL_API_TOKEN", "tok-3f9a1c77e2")
    monkeypatch.setenv("RECALL_LLM_API_KEY", "key-81b2d4e6")
    monkeypatch.setenv("RECALL_S3_ACCESS_KEY", "AKIA7Q2W")
    monkeypatch.setenv("RECALL_S3_SECRET_KEY", "s3sec-5e7d")
    out = recall("settings").stdout
    for secret in ("tok-3f9a1c77e2", "key-81b2d4e6", "AKIA7Q2W", "s3sec-5e7d"):
        assert secret not in out
    lines = {line.split("=")[0].strip(): line.split("=", 1)[1].strip()
             for line in out.splitlines() if line.startswith("RECALL_")}
    secrets = ["RECALL_API_TOKEN", "RECALL_LLM_API_KEY", "RECALL_S3_ACCESS_KEY",
               "RECALL_S3_SECRET_KEY"]
    assert {lines[name] for name in secrets} == {"(set)"}
    assert [s.env for s in SETTINGS if s.secret] == secrets
    assert list(lines) == [s.env for s in SETTINGS]


@pytest.mark.parametrize("env", [{"RECALL_HOME": "/srv/recall"},
                                 {"RECALL_HOME": "/srv/recall", "RECALL_MODEL_CACHE": "/m/cache"},
                                 {}])
def test_an_embedder_loaded_without_a_cache_folder_uses_the_settings_one(env: dict[str, str]
                                                                          ) -> None:
    """Benchmarks and scripts that name no folder once built the model into ./models: in a
    checkout, the records package."""
    from indexer.embedding.embedders import default_model_cache

    assert default_model_cache(env) == Settings.from_env(env).model_cache
