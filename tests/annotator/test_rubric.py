"""The rubric's grade lines, which stay in view beside the item on the labeling page."""

from __future__ import annotations

import pytest

from annotator.rubric import Rubric, load_rubric


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_each_grade_has_one_line_its_heading_and_first_sentence(lang):
    rubric = load_rubric(lang)
    lines = rubric.grade_lines
    assert list(lines) == [3, 2, 1, 0]
    for grade, (heading, first) in lines.items():
        assert heading == f"{grade} — {rubric.labels[grade]}"
        assert first and first[-1] in ".。", first
        assert first in rubric.text.replace("\n", "" if lang == "zh" else " ")
        assert "Example" not in first and "示例" not in first


def test_the_first_sentence_ends_at_its_full_stop_not_inside_a_number():
    text = "## 2 — Partly\nIt gives 1.5 mm as the limit. Then more.\n- Example: no.\n"
    rubric = Rubric(version="v", lang="en", text=text, labels={2: "Partly"})
    assert rubric.grade_lines == {2: ("2 — Partly", "It gives 1.5 mm as the limit.")}
