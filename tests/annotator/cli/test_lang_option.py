"""``--lang`` sets the language of the command it is given to, on the settings
(``pooling.settings.chosen``), and never writes the environment."""

from __future__ import annotations

import os

from tests.conftest import run_qrels


class Watched(dict):
    """An environment that remembers every variable set in it."""

    def __init__(self, *args) -> None:
        super().__init__(*args)
        self.written: list[str] = []

    def __setitem__(self, key, value) -> None:
        self.written.append(key)
        super().__setitem__(key, value)


def test_lang_sets_the_commands_language_not_the_environment(db_url, engine, monkeypatch):
    monkeypatch.delenv("QRELS_LANG", raising=False)
    monkeypatch.setenv("LANG", "en_US.UTF-8")
    watched = Watched(os.environ)
    monkeypatch.setattr(os, "environ", watched)
    result = run_qrels(db_url, "--lang", "zh", "status")
    assert "数据库为空" in result.output
    assert watched.written == []
    assert "数据库为空" not in run_qrels(db_url, "status").output
