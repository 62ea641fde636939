"""A folder of Markdown, text and HTML files read as whole documents: ids, titles, the
text of HTML pages, and located errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from pooling.document_folder import (
    SUFFIXES,
    html_title_and_text,
    markdown_title,
    read_corpus_source,
    read_document_folder,
)
from pooling.i18n import t
from pooling.readers import InputError


def put(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


@pytest.fixture
def english(monkeypatch):
    monkeypatch.setenv("QRELS_LANG", "en")


def test_each_file_is_a_document_with_its_path_title_and_format(tmp_path):
    put(tmp_path, "guide/setup.md", "Intro line\n\n## Setting up\n\nPress the button.\n")
    put(tmp_path, "借书 规则.txt", "\ufeff借书规则\r\n\r\n每位读者最多借五本书。\r\n")
    put(tmp_path, "hours.html", "<title> Opening\n hours </title><h1>Hours</h1><p>Nine.</p>")
    put(tmp_path, "logo.png", b"\x89PNG")
    put(tmp_path, ".hidden.md", "# secret")
    put(tmp_path, ".git/config.txt", "not a document")
    folder = read_document_folder(tmp_path)
    found = {r.id: (r.title, r.text, r.metadata) for r in folder.records}
    assert found == {
        "guide/setup.md": (
            "Setting up",
            "Intro line\n\n## Setting up\n\nPress the button.",
            {"path": "guide/setup.md", "format": "markdown"},
        ),
        "hours.html": ("Opening hours", "Hours\n\nNine.", {"path": "hours.html", "format": "html"}),
        "借书_规则.txt": (
            "借书规则",
            "借书规则\n\n每位读者最多借五本书。",
            {"path": "借书 规则.txt", "format": "text"},
        ),
    }
    assert [r.id for r in folder.records] == sorted(found)  # path order
    assert folder.skipped == [(".git/", "hidden"), (".hidden.md", "hidden"), ("logo.png", "kind")]


def test_hidden_files_and_folders_are_named_a_folder_once(tmp_path):
    put(tmp_path, "a.md", "# A")
    put(tmp_path, ".DS_Store", b"\0")
    for n in range(20):  # what a .git holds: named once, as the folder
        put(tmp_path, f".git/objects/{n:02d}/x.txt", "not a document")
    put(tmp_path, "guide/.draft.md", "# not yet")
    put(tmp_path, "guide/.cache/page.html", "<p>x</p>")
    notes: list = []
    read_corpus_source(tmp_path, False, notes)
    params = {
        "count": 4,
        "suffixes": SUFFIXES,
        "files": ".DS_Store, .git/, guide/.cache/, guide/.draft.md",
    }
    assert notes == [("folder_skipped_hidden", params)]
    assert t("folder_skipped_hidden", "en", **params) == (
        "4 hidden files and folders passed over (names starting with '.'; a folder is not "
        "entered): .DS_Store, .git/, guide/.cache/, guide/.draft.md"
    )
    assert t("folder_skipped_hidden", "zh", **params) == (
        "跳过 4 个隐藏的文件或文件夹（名称以“.”开头；文件夹不进入）："
        ".DS_Store, .git/, guide/.cache/, guide/.draft.md"
    )


def test_a_bad_file_is_named_as_the_folder_shows_it_not_by_its_real_path(tmp_path, monkeypatch):
    put(tmp_path, "docs/a.md", "# A")
    put(tmp_path, "docs/real/latin1.txt", "caf\xe9".encode("latin-1"))
    (tmp_path / "docs/alias.txt").symlink_to(tmp_path / "docs/real/latin1.txt")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as caught:
        read_document_folder("docs")
    assert caught.value.file == "docs/alias.txt"  # not /tmp/…/docs/real/latin1.txt
    (tmp_path / "docs/alias.txt").unlink()
    with pytest.raises(InputError) as caught:
        read_document_folder("docs")
    assert caught.value.message("en").startswith("docs/real/latin1.txt, line 1: ")


def test_a_word_97_file_is_named_with_how_to_convert_it(tmp_path):
    put(tmp_path, "a.md", "# A")
    put(tmp_path, "old/报告.DOC", b"\xd0\xcf\x11\xe0")  # the OLE2 header of a .doc
    put(tmp_path, "logo.png", b"\x89PNG")
    notes: list = []
    read_corpus_source(tmp_path, False, notes)
    doc = {"count": 1, "suffixes": SUFFIXES, "files": "old/报告.DOC"}
    assert notes == [
        ("folder_skipped", {"count": 1, "suffixes": SUFFIXES, "files": "logo.png"}),
        ("folder_skipped_doc", doc),
    ]
    assert t("folder_skipped_doc", "en", **doc) == (
        "1 Word 97–2003 files passed over (.doc is not read here; save them as .docx, e.g. "
        "soffice --headless --convert-to docx FILE): old/报告.DOC"
    )
    assert t("folder_skipped_doc", "zh", **doc) == (
        "跳过 1 个 Word 97–2003 文件（此处不读取 .doc；请另存为 .docx，例如 soffice --headless "
        "--convert-to docx 文件）：old/报告.DOC"
    )


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("# Title #\n\ntext", "Title"),
        ('---\ntitle: "Front"\n---\n# Heading', "Front"),
        ("```\n# not a heading\n```\nPlain first\n", "```"),
        ("Setext title\n===========\n\nbody", "Setext title"),
        ("\n\n  just a line  \nmore", "just a line"),
        ("#hashtag is not a heading\n# 标题", "标题"),
    ],
)
def test_markdown_title(text, title):
    assert markdown_title(text) == title


def test_html_text_drops_scripts_styles_and_head_and_keeps_blocks():
    html = (
        "<html><head><title>T</title><style>p { color: red }</style></head><body>"
        "<script>alert('x')</script><h1>Big   heading</h1><p>One &amp; two&nbsp;words."
        "</p><ul><li>first</li><li>second</li></ul><p>a<br>b</p></body></html>"
    )
    assert html_title_and_text(html) == (
        "T",
        "Big heading\n\nOne & two words.\n\nfirst\n\nsecond\n\na\n\nb",
    )
    # A reference to a control character is dropped by the parser, never kept.
    assert html_title_and_text("<p>a&#27;[31mb</p>") == ("a[31mb", "a[31mb")
    assert html_title_and_text("<h1>停车</h1><p>二十个车位。</p>") == (
        "停车",
        "停车\n\n二十个车位。",
    )


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.md", b"ok\n\xff\xfe\n", "bad.md, line 2: not valid UTF-8 text (invalid start byte)"),
        (
            "ctl.txt",
            "fine\nbell \x07 here\n",
            "ctl.txt, line 2: holds the control character U+0007",
        ),
        ("empty.md", "\n  \n", "empty.md: text is empty (to keep empty documents"),
        ("blank.html", "<script>x()</script>", "blank.html: text is empty"),
    ],
)
def test_bad_files_are_refused_naming_file_and_line(tmp_path, english, name, content, message):
    put(tmp_path, "good.md", "# Good\n\ntext")
    put(tmp_path, name, content)
    with pytest.raises(InputError) as error:
        read_document_folder(tmp_path)
    assert error.value.message("en").startswith(str(tmp_path / message.split(":")[0]))
    assert message.split(",", 1)[-1].split(":", 1)[-1].strip() in error.value.message("en")


def test_empty_text_is_kept_when_allowed(tmp_path):
    put(tmp_path, "empty.md", "")
    assert [(r.id, r.text) for r in read_document_folder(tmp_path, allow_empty=True).records] == [
        ("empty.md", "")
    ]


def test_two_files_of_one_id_and_an_empty_folder_are_refused(tmp_path, english):
    put(tmp_path, "a b.md", "one")
    put(tmp_path, "a_b.md", "two")
    with pytest.raises(InputError) as error:
        read_document_folder(tmp_path)
    assert error.value.message("en") == (
        f"{tmp_path / 'a_b.md'}: its id 'a_b.md' (its path, spaces made _) is already the id "
        "of 'a b.md'"
    )
    empty = tmp_path / "none"
    put(empty, "picture.png", b"")
    with pytest.raises(InputError, match="no document to import"):
        read_document_folder(empty)
    assert "没有可导入的文档" in InputError(
        str(empty), "folder_no_documents", suffixes="x"
    ).message("zh")
