"""Issue 21, item 4: the Evaluate page showed error texts (``st.error(message(error))``) and
run names (``st.subheader(...)``) as Markdown, and a run id ``![e](http://host/leak)`` made
the lead's browser fetch the URL. So that no page can do it again, every call in the app's
shell that renders Markdown (alerts, headers, captions, ``st.markdown``/``st.write``, widget
labels and help, a radio's options, a progress bar's text) is read here from the source, and
what it is given must be the app's own text: a literal, a message ``ui.t`` fills with
numbers and the app's own words, or ``ui.as_text`` (what ``ui.plain`` shows). Anything else
(a name, an error, a run, a release) goes through ``ui.plain`` / ``ui.as_text``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[2] / "annotator" / "app"
SOURCES = sorted([*APP.glob("*.py"), *(APP / "pages").glob("*.py")])

# Streamlit calls that render their first argument as Markdown, and the arguments (by
# keyword) that every widget renders as Markdown besides its label.
TEXTS = {"title", "header", "subheader", "caption", "markdown", "write", "toast"}
ALERTS = {"error", "warning", "info", "success", "exception"}
WIDGETS = {
    "button", "download_button", "link_button", "page_link", "form_submit_button", "checkbox",
    "toggle", "radio", "selectbox", "multiselect", "text_input", "text_area", "number_input",
    "slider", "select_slider", "file_uploader", "date_input", "time_input", "color_picker",
    "camera_input", "audio_input", "expander", "popover", "metric", "pills",
    "segmented_control", "feedback", "chat_input",
}  # fmt: skip
MARKDOWN_KEYWORDS = {"label", "body", "help", "text", "captions", "placeholder"}
OPTIONS_AS_MARKDOWN = {"radio", "pills", "segmented_control"}  # their options, too
NOT_STREAMLIT = {"logger", "logging", "file", "warnings", "sys", "handle"}
NUMBERS = {"int", "float", "len", "round", "abs", "min", "max", "sum"}
MESSAGE = {"t", "ui.t", "translate"}  # a message of pooling/i18n.py
VERBATIM = {"as_text", "ui.as_text"}
# A call may render Markdown of the app's own (the rubric shipped in rubrics/) when its line
# says so with this comment.
OWN_MARKDOWN = "# markdown: the app's own"


def named(node: ast.expr) -> str:
    try:
        return ast.unparse(node)
    except Exception:  # pragma: no cover - unparse handles every expression
        return ""


def safe(node: ast.expr | None) -> bool:
    """Whether ``node`` can only be the app's own text or a number."""
    if node is None or isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.JoinedStr):
        return all(safe(part) for part in node.values)
    if isinstance(node, ast.FormattedValue):  # a format spec formats a number or a time
        return node.format_spec is not None or safe(node.value)
    if isinstance(node, ast.Name):  # a module's constant
        return node.id.isupper()
    if isinstance(node, ast.Subscript):  # a constant's item, or a literal table's
        if isinstance(node.value, ast.Dict):
            return all(safe(v) for v in node.value.values)
        return isinstance(node.value, ast.Name) and node.value.id.isupper()
    if isinstance(node, ast.Call):
        name = named(node.func)
        if name in NUMBERS or name in VERBATIM:
            return True
        if name in MESSAGE:  # the key picks a message of the catalog (else KeyError)
            return all(safe(a) for a in node.args[1:]) and all(
                k.arg is not None and safe(k.value) for k in node.keywords
            )
        return False
    if isinstance(node, ast.BinOp):  # arithmetic with a number is a number
        numeric = [isinstance(s, ast.Constant) and isinstance(s.value, int | float) for s in
                   (node.left, node.right)]  # fmt: skip
        return any(numeric) or (safe(node.left) and safe(node.right))
    if isinstance(node, ast.UnaryOp):
        return safe(node.operand)
    if isinstance(node, ast.IfExp):
        return safe(node.body) and safe(node.orelse)
    if isinstance(node, ast.List | ast.Tuple):
        return all(safe(e) for e in node.elts)
    if isinstance(node, ast.Lambda):
        return safe(node.body)
    return False


def rendered(call: ast.Call, kind: str) -> list[ast.expr | None]:
    """The arguments of ``call`` (a Streamlit ``kind``) that Streamlit renders as Markdown."""
    keywords = {k.arg: k.value for k in call.keywords if k.arg}
    shown = [k for name, k in keywords.items() if name in MARKDOWN_KEYWORDS]
    if kind == "write":
        shown += call.args
    elif kind == "progress":
        shown += call.args[1:2]
    elif kind == "tabs":
        shown += call.args[:1]
    else:
        shown += call.args[:1]
    if kind in OPTIONS_AS_MARKDOWN:
        if "format_func" in keywords:
            shown.append(keywords["format_func"])
        else:
            shown += call.args[1:2] or [keywords.get("options")]
    return shown


def unsafe_calls(source: str) -> list[tuple[int, str]]:
    """``(line, call)`` for every Streamlit call in ``source`` that may render a string
    that is not the app's own as Markdown."""
    lines, tree, found = source.splitlines(), ast.parse(source), []
    modules = {  # calls on a module of the app (``assignment.progress``) are not Streamlit's
        (alias.asname or alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias in node.names
    } - {"st"}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        kind, receiver = node.func.attr, node.func.value
        if kind not in TEXTS | ALERTS | WIDGETS | {"progress", "tabs"}:
            continue
        if isinstance(receiver, ast.Name) and receiver.id in NOT_STREAMLIT | modules:
            continue
        span = lines[node.lineno - 1 : node.end_lineno]
        if any(OWN_MARKDOWN in line for line in span):
            continue
        if not all(safe(argument) for argument in rendered(node, kind)):
            found.append((node.lineno, named(node)[:120]))
    return found


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_page_renders_a_string_that_is_not_its_own_as_markdown(path):
    assert unsafe_calls(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "line",
    [
        "st.error(message(error))",
        "st.subheader(ui.t('eval_scatter_title', metric=metric, run=run))",
        "st.caption(f'{title}')",
        "st.button(ui.t('judge_stop', run=run.run), key='x')",
        "left.expander(name)",
        "st.radio(ui.t('pick'), names)",
        "st.radio(ui.t('pick'), GRADES, format_func=lambda g: f'{g}')",
        "st.progress(0.5, text=ui.t('judge_progress', model=run.model))",
        "st.write(row.note)",
        "st.selectbox(ui.t('pick'), names, help=chunk.title)",
        "st.tabs([name, 'b'])",
    ],
)
def test_the_scan_finds_markdown_built_from_outside_strings(line):
    """The scan can fail: each of these would render a user's or a file's string."""
    assert unsafe_calls(line) != []


@pytest.mark.parametrize(
    "line",
    [
        "st.error(ui.t('refused'))",
        "st.caption(ui.t('queue_count', count=len(shown)))",
        "ui.plain(ui.t('eval_scatter_title', run=run), 'subheader')",
        "st.button(ui.as_text(ui.t('judge_stop', run=run.run)), key='x')",
        "st.radio(ui.t('pick'), GRADES, format_func=lambda g: f'{g:d}')",
        "logger.error(message)",
        "st.markdown(rubric.compact)  # markdown: the app's own (rubrics/)",
    ],
)
def test_the_scan_lets_the_apps_own_text_through(line):
    assert unsafe_calls(line) == []
