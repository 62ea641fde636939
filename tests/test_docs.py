"""The README is the door and docs/ the house: the README stays short, every ``qrels``
command shown in either exists with the options shown (read from the click group itself),
and every relative link points at a file that exists."""

from __future__ import annotations

import re
from pathlib import Path

import click
import pytest

from annotator.cli import cli

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
README_MAX_LINES = 250

FENCE = re.compile(r"^```(\w*)\s*$")
INLINE_CODE = re.compile(r"`([^`]+)`")
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# The word qrels as a command (also .venv/bin/qrels): a word of its own, not part of a file
# name (qrels.trec, qrels-doc.trec), a Python name (release.qrels_frame) or a URL.
COMMAND = re.compile(r"(?<!\S)(?:\.venv/bin/)?qrels(?!\S)")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
NOT_SHELL = {"python", "json"}


def code_lines(text: str) -> list[str]:
    """The logical lines of every shell or text code block (continuation lines, indented or
    after a backslash, joined to the line they continue), and every inline code span."""
    lines: list[str] = []
    in_block, language, indent = False, "", 0
    for line in text.splitlines():
        fence = FENCE.match(line.strip())
        if fence:
            in_block, language = not in_block, fence.group(1)
            indent = len(line) - len(line.lstrip())
            continue
        if not in_block or language in NOT_SHELL:
            continue
        line = line[indent:]
        if language != "text":  # a shell comment is not part of the command
            line = re.sub(r"(^|\s)#.*$", "", line)
        continues = lines and (lines[-1].endswith("\\") or line[:1].isspace())
        if continues and line.strip():
            lines[-1] = lines[-1].rstrip("\\").rstrip() + " " + line.strip()
        else:
            lines.append(line)
    # Inline spans may wrap across lines of a paragraph.
    prose = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    lines.extend(" ".join(span.split()) for span in INLINE_CODE.findall(prose))
    return lines


def commands_shown(path: Path) -> list[str]:
    """Every ``qrels ...`` invocation shown in a page, from the word qrels to the next one
    (or a shell operator)."""
    shown = []
    for line in code_lines(path.read_text(encoding="utf-8")):
        matches = list(COMMAND.finditer(line))
        starts = [match.end() for match in matches]
        ends = [match.start() for match in matches][1:] + [len(line)] * bool(matches)
        for start, end in zip(starts, ends, strict=True):
            words = re.split(r"&&|;", line[start:end])[0].strip()
            shown.append(words.removesuffix("|").strip())  # qrels a | qrels b
    return shown


def option_names(command: click.Command) -> set[str]:
    return {name for param in command.params for name in (*param.opts, *param.secondary_opts)}


def check_command(words: str) -> str | None:
    """None when ``qrels <words>`` names a command and each option shown is one of it (or
    of the group above it); else what is wrong."""
    command: click.Command = cli
    allowed = option_names(cli) | {"--help"}
    for word in words.split():
        if word.startswith(("-", "[", "(", "<", "'", '"')) or not isinstance(command, click.Group):
            break
        sub = command.get_command(click.Context(command), word)
        if sub is None:
            if re.fullmatch(r"[a-z][a-z-]*", word):
                return f"no command {word!r} in {command.name!r}"
            break
        command = sub
        allowed |= option_names(command)
    unknown = sorted(set(OPTION.findall(words)) - allowed)
    if unknown:
        return f"{command.name!r} has no option {', '.join(unknown)}"
    return None


def test_readme_is_short() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines"


def test_the_docs_pages_exist() -> None:
    assert len(PAGES) > 10, "docs/ holds one page per topic"


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_command_shown_exists(page: Path) -> None:
    shown = commands_shown(page)
    problems = [f"qrels {words}: {why}" for words in shown if (why := check_command(words))]
    assert not problems, f"{page.relative_to(ROOT)}:\n" + "\n".join(problems)


def test_the_command_check_can_fail() -> None:
    assert check_command("pool build p --systems bm25 --depth 5") is None
    assert check_command("[--db URL] [--lang en|zh] COMMAND") is None
    assert check_command("pool bild p") == "no command 'bild' in 'pool'"
    assert check_command("release create v1 --pool p --outt r") == ("'create' has no option --outt")


def test_commands_are_found_in_blocks_and_inline_code() -> None:
    text = (
        "Run `qrels pool show NAME\n--per-query` or:\n\n```sh\n"
        "source .venv/bin/activate && .venv/bin/qrels demo --no-serve  # a comment --nope\n"
        "qrels evaluate --release r \\\n    --run a.trec\n```\n"
        "```text\nqrels user list | qrels user disable NAME\n"
        "qrels import queries F\n                --query-set V\n```\n"
        "Files: `qrels.trec`, `qrels-doc.trec`, `postgresql://h/qrels`.\n"
    )
    page = Path(__file__).parent / "_docs_sample.md"
    try:
        page.write_text(text, encoding="utf-8")
        shown = commands_shown(page)
    finally:
        page.unlink()
    assert shown == [
        "demo --no-serve",
        "evaluate --release r --run a.trec",
        "user list",
        "user disable NAME",
        "import queries F --query-set V",
        "pool show NAME --per-query",
    ]


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_resolves(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        resolved = (page.parent / path).resolve() if path else page
        missing_anchor = bool(anchor) and resolved.suffix == ".md"
        if not resolved.exists() or (missing_anchor and anchor not in anchors(resolved)):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: links to nothing: {broken}"


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings (lower case, punctuation dropped, spaces to -)."""
    found = set()
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            found.add(re.sub(r"\s", "-", re.sub(r"[^\w\s-]", "", title)))
    return found
