"""The grading rubric, one folder per version under ``rubrics/``, one file per language."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pooling.i18n import t

_HEADING = re.compile(r"^## ([0-3]) — (.+)$", re.MULTILINE)
_FIRST_SENTENCE = re.compile(r".+?(?:[.!?](?=\s|$)|[。！？])")


@dataclass(frozen=True)
class Rubric:
    """A rubric in one language: its version, its full Markdown text and the grade labels."""

    version: str
    lang: str
    text: str
    labels: dict[int, str]

    @property
    def compact(self) -> str:
        """The text with headings made small, to sit beside the item being graded."""
        return re.sub(
            r"^(#{1,3}) ", lambda m: "#" * (len(m.group(1)) + 3) + " ", self.text, flags=re.M
        )

    @property
    def grade_lines(self) -> dict[int, tuple[str, str]]:
        """Each grade's heading and the first sentence under it, highest grade first: the
        four lines that stay in view beside the item while the whole text scrolls."""
        lines = {}
        for match in _HEADING.finditer(self.text):
            body = self.text[match.end() :].split("\n## ", 1)[0]
            prose = " ".join(
                line.strip() for line in body.splitlines() if line.strip()[:1] not in ("", "-")
            )
            sentence = _FIRST_SENTENCE.match(prose)
            first = sentence.group(0).strip() if sentence else prose
            lines[int(match.group(1))] = f"{match.group(1)} — {match.group(2).strip()}", first
        return dict(sorted(lines.items(), reverse=True))


def rubric_dir() -> Path:
    """``rubrics/`` beside the packages (a checkout), else where the wheel installed it."""
    for candidate in (
        Path(__file__).resolve().parent.parent / "rubrics",
        Path(sys.prefix) / "share" / "qrels-studio" / "rubrics",
    ):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(t("rubrics_missing"))


def _version_key(name: str) -> tuple:
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name))


def versions() -> list[str]:
    """All rubric versions, oldest first."""
    return sorted((p.name for p in rubric_dir().iterdir() if p.is_dir()), key=_version_key)


def current_version() -> str:
    """The newest rubric version: the one new judgments are made under."""
    return versions()[-1]


@cache
def load_rubric(lang: str = "en", version: str | None = None) -> Rubric:
    """The rubric ``version`` (default: current) in ``lang`` (``en`` or ``zh``).
    Raises ``FileNotFoundError`` when that version or language does not exist."""
    version = version or current_version()
    text = (rubric_dir() / version / f"{lang}.md").read_text(encoding="utf-8")
    labels = {int(grade): label.strip() for grade, label in _HEADING.findall(text)}
    return Rubric(version=version, lang=lang, text=text, labels=labels)
