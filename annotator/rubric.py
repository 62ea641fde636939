"""The grading rubric, one folder per version under ``rubrics/``, one file per language."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from pooling.i18n import LocalizedError, t
from pooling.settings import current

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
    """The team's own rubrics (``$QRELS_RUBRIC_DIR``, made with ``qrels rubric new``), else
    ``rubrics/`` beside the packages (a checkout), else where the wheel installed it.
    Raises ``FileNotFoundError`` when the folder named is not one."""
    own = current().rubric_dir
    if own is not None:
        if not own.is_dir():
            raise FileNotFoundError(t("rubric_dir_missing", path=own))
        return own
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
    path = rubric_dir() / version / f"{lang}.md"
    text = path.read_text(encoding="utf-8")
    labels = {int(grade): label.strip() for grade, label in _HEADING.findall(text)}
    missing = [str(grade) for grade in range(4) if grade not in labels]
    if missing:  # the grade buttons and the model judge read the four labels
        raise LocalizedError("rubric_grades_missing", file=path, grades=", ".join(missing))
    return Rubric(version=version, lang=lang, text=text, labels=labels)


TEMPLATE = Path(__file__).parent / "rubric_template"


def new_rubric(folder: Path, version: str) -> list[Path]:
    """Write a rubric of one's own, ``folder/version/en.md`` and ``zh.md``, from the
    template (the shipped rubric's grades, examples to replace with one's collection's);
    returns the files. Raises ``LocalizedError`` when the version exists there already or
    its name is not a plain name."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}", version):
        raise LocalizedError("rubric_version_name", version=version)
    target = folder / version
    if target.exists():
        raise LocalizedError("rubric_version_exists", path=target)
    target.mkdir(parents=True)
    written = []
    for lang in ("en", "zh"):
        text = (TEMPLATE / f"{lang}.md").read_text(encoding="utf-8")
        (target / f"{lang}.md").write_text(text.replace("{version}", version), encoding="utf-8")
        written.append(target / f"{lang}.md")
    return written
