"""A rubric of one's own (issue 40): ``qrels rubric new`` writes the template as a version
named for today, ``QRELS_RUBRIC_DIR`` puts it in force, and judgments record its version."""

from __future__ import annotations

from datetime import date

import pytest
from click.testing import CliRunner

from annotator import rubric
from annotator.cli import cli
from pooling.i18n import LocalizedError


@pytest.fixture(autouse=True)
def fresh_rubrics():
    rubric.load_rubric.cache_clear()
    yield
    rubric.load_rubric.cache_clear()


def test_a_rubric_of_ones_own_is_written_put_in_force_and_recorded(tmp_path, monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")
    own = tmp_path / "my-rubrics"
    result = CliRunner().invoke(cli, ["rubric", "new", str(own)])
    assert result.exit_code == 0, result.output + result.stderr
    today = date.today().isoformat()
    assert f"wrote rubric {today}" in result.output
    assert f"export QRELS_RUBRIC_DIR={own.resolve()}" in result.output
    assert sorted(p.name for p in (own / today).iterdir()) == ["en.md", "zh.md"]
    assert rubric.current_version() != today  # not yet in force
    monkeypatch.setenv("QRELS_RUBRIC_DIR", str(own))
    assert rubric.current_version() == today
    for lang in ("en", "zh"):
        loaded = rubric.load_rubric(lang)
        assert loaded.version == today and sorted(loaded.labels) == [0, 1, 2, 3]
        assert today in loaded.text and "EDIT" in loaded.text  # the examples to replace
        assert "tool kit" not in loaded.text and "e-bike" not in loaded.text  # not the demo's
    # Judgments made now record it, as they record the shipped rubric's version.
    from annotator.judge.prompt import default_prompt

    assert default_prompt().rubric_version == today
    # Never rewritten; a version is a plain name.
    again = CliRunner().invoke(cli, ["rubric", "new", str(own), "--version", today])
    assert again.exit_code == 2 and "exists already" in again.stderr
    odd = CliRunner().invoke(cli, ["rubric", "new", str(own), "--version", "../x"])
    assert odd.exit_code == 2 and "is not a plain name" in odd.stderr
    assert not (tmp_path / "x").exists()


def test_a_rubric_without_its_four_grades_is_refused_naming_the_file(tmp_path, monkeypatch):
    broken = tmp_path / "rubrics" / "r1"
    broken.mkdir(parents=True)
    (broken / "en.md").write_text("# Mine\n\n## 3 — Yes\n## 0 — No\n", encoding="utf-8")
    monkeypatch.setenv("QRELS_RUBRIC_DIR", str(tmp_path / "rubrics"))
    with pytest.raises(LocalizedError) as refused:
        rubric.load_rubric("en")
    assert "no heading for grade 1, 2" in refused.value.message("en")
    assert str(broken / "en.md") in refused.value.message("en")
    monkeypatch.setenv("QRELS_RUBRIC_DIR", str(tmp_path / "nowhere"))
    with pytest.raises(FileNotFoundError, match="is not a folder of rubrics"):
        rubric.current_version()
