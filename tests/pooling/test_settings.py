"""The settings, read from the environment in one place: defaults, the variables, a
command's own choices (``--lang``) that leave the environment alone, and a bad value."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from pooling import choices
from pooling.i18n import LocalizedError
from pooling.settings import ONE_BLAS_THREAD, child_environment, chosen, current


def test_defaults_without_any_variable():
    settings = current({})
    assert settings.database_url is None
    assert settings.language == "en"
    assert settings.upload_limit_mb == 200
    assert settings.cache_dir == Path.home() / ".cache" / "qrels-studio"
    assert settings.release_dir == Path("releases")


def test_each_setting_is_read_from_its_variable():
    settings = current(
        {
            "QRELS_DATABASE_URL": "sqlite:///x.db",
            "QRELS_LANG": "zh",
            "QRELS_UPLOAD_LIMIT_MB": "5",
            "QRELS_CACHE_DIR": "/tmp/c",
            "QRELS_RELEASE_DIR": "/tmp/r",
        }
    )
    assert settings.database_url == "sqlite:///x.db"
    assert (settings.language, settings.upload_limit_mb) == ("zh", 5)
    assert (settings.cache_dir, settings.release_dir) == (Path("/tmp/c"), Path("/tmp/r"))
    assert current({"LANG": "zh_CN.UTF-8"}).language == "zh"
    assert current({"QRELS_LANG": "fr", "LC_ALL": "en_US"}).language == "en"


@pytest.mark.parametrize("value", ["lots", "0", "-3", "1.5"])
def test_a_bad_upload_limit_names_the_variable(value):
    with pytest.raises(LocalizedError, match="QRELS_UPLOAD_LIMIT_MB"):
        current({"QRELS_UPLOAD_LIMIT_MB": value})


def test_a_choice_holds_for_its_block_and_leaves_the_environment_alone(monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    with chosen(language="zh", release_dir=None) as settings:
        assert settings.language == current().language == "zh"
        assert os.environ["QRELS_LANG"] == "en"
        assert child_environment(database_url="sqlite:///y.db")["QRELS_LANG"] == "zh"
        assert child_environment(database_url="sqlite:///y.db")["QRELS_DATABASE_URL"] == (
            "sqlite:///y.db"
        )
    assert current().language == "en"


def test_the_app_gets_one_blas_thread_unless_the_environment_chose(monkeypatch):
    for name in ONE_BLAS_THREAD:
        monkeypatch.delenv(name, raising=False)
    assert all(child_environment()[name] == "1" for name in ONE_BLAS_THREAD)
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    assert child_environment()["OPENBLAS_NUM_THREADS"] == "4"


def test_a_browsers_language_comes_after_the_deployments_and_before_the_servers_locale():
    assert choices.language({"LANG": "en_US.UTF-8"}, browser="zh-CN") == "zh"
    assert choices.language({"LANG": "zh_CN.UTF-8"}, browser="en-GB") == "en"
    assert choices.language({"QRELS_LANG": "en"}, browser="zh-TW") == "en"
    assert choices.language({"LANG": "zh_CN.UTF-8"}, browser=None) == "zh"
    assert choices.language({}, browser="") == "en"
