"""PDF and Word files in a folder of documents: the text of each PDF page and where it
begins, Word paragraphs and headings, pages without a text layer left out and named, and
encrypted, truncated or broken files refused with their name. On files the tests make."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from pooling.document_folder import read_corpus_source, read_document_folder
from pooling.document_places import Place, markdown_sections, place_of
from pooling.office_documents import read_docx, read_pdf
from pooling.readers import InputError
from tests.pooling.made_documents import encrypt_pdf, make_docx, make_pdf

PAGE_ONE = ["Brakes wear out.", "Check the pads every month."]
PAGE_TWO = ["绿茶应当密封冷藏。", "红茶常温避光保存即可。"]


def test_a_two_page_pdf_keeps_each_pages_text_and_where_it_begins(tmp_path):
    found = read_pdf(make_pdf(tmp_path / "guide.pdf", [PAGE_ONE, PAGE_TWO], title="Guide"))
    assert found.title == "Guide"
    one, two = "\n".join(PAGE_ONE), "\n".join(PAGE_TWO)
    assert found.text == one + "\n\n" + two
    assert found.pages == [(0, 1), (len(one) + 2, 2)]
    assert found.text[found.pages[1][0] :].startswith("绿茶")
    assert found.pages_without_text == []


def test_a_page_without_a_text_layer_is_left_out_and_named(tmp_path):
    path = make_pdf(tmp_path / "scan.pdf", [PAGE_ONE, None, PAGE_TWO])
    found = read_pdf(path)
    assert found.pages_without_text == [2]
    assert [page for _, page in found.pages] == [1, 3]
    assert found.title == "Brakes wear out."  # no title in the file: its first line
    notes: list = []
    read_corpus_source(tmp_path, False, notes)
    assert notes == [("pages_without_text", {"file": "scan.pdf", "pages": "2"})]


def test_a_pdf_of_scans_only_is_refused_saying_why(tmp_path):
    make_pdf(tmp_path / "scan.pdf", [None, None])
    with pytest.raises(InputError) as caught:
        read_document_folder(tmp_path)
    assert caught.value.message("en").endswith(
        "scan.pdf: none of the PDF's 2 pages has a text layer (scans?), and there is no OCR "
        "here: OCR it elsewhere (e.g. ocrmypdf) and import it again, or keep it as an empty "
        "document with --allow-empty"
    )
    assert caught.value.message("zh").endswith(
        "scan.pdf：此 PDF 的 2 页都没有文字层（扫描件？），而本工具不做 OCR：请先在别处为它做 "
        "OCR（如 ocrmypdf）再导入，或用 --allow-empty 将其保留为空文档"
    )
    notes: list = []  # --allow-empty: an empty document, its pages named as a scan's are
    (record,) = read_corpus_source(tmp_path, True, notes)
    assert record.text == ""
    assert notes == [("pages_without_text", {"file": "scan.pdf", "pages": "1, 2"})]


@pytest.mark.parametrize(
    ("damage", "english", "chinese"),
    [
        (
            "encrypted",
            "the PDF is encrypted: save it without a password, then import it again",
            "该 PDF 已加密：请先另存为无密码的文件，再重新导入",
        ),
        (
            "truncated",
            "the PDF is cut short (no %%EOF at its end): copy the whole file again",
            "该 PDF 不完整（末尾没有 %%EOF）：请重新复制完整的文件",
        ),
        ("garbage", "cannot be read as a document of its kind: ", "无法按其类型读取："),
    ],
)
def test_an_encrypted_truncated_or_broken_pdf_is_refused_with_its_name(
    tmp_path, damage, english, chinese
):
    good = make_pdf(tmp_path / "good.pdf", [PAGE_ONE, PAGE_TWO])
    folder = tmp_path / "docs"
    folder.mkdir()
    bad = folder / "bad.pdf"
    if damage == "encrypted":
        encrypt_pdf(good, bad)
    elif damage == "truncated":
        bad.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    else:
        bad.write_bytes(b"%PDF-1.4\nnot a pdf at all\n%%EOF\n")
    with pytest.raises(InputError) as caught:
        read_document_folder(folder)
    assert caught.value.message("en").startswith(f"{bad}: {english}")
    assert caught.value.message("zh").startswith(f"{bad}：{chinese}")


def test_a_pdf_with_an_owner_password_only_opens_as_in_any_viewer(tmp_path):
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(make_pdf(tmp_path / "a.pdf", [PAGE_ONE])))
    writer.encrypt(user_password="", owner_password="owner", algorithm="RC4-128")
    with open(tmp_path / "locked.pdf", "wb") as handle:
        writer.write(handle)
    assert read_pdf(tmp_path / "locked.pdf").text == "\n".join(PAGE_ONE)


def test_a_docx_keeps_paragraphs_headings_and_sections(tmp_path):
    blocks = [
        ("heading1", "Setup"),
        ("text", "Plug it in."),
        ("heading2", "刹车"),
        ("text", "每月检查刹车片。"),
    ]
    found = read_docx(make_docx(tmp_path / "manual.docx", blocks))
    assert found.text == "Setup\n\nPlug it in.\n\n刹车\n\n每月检查刹车片。"
    assert found.sections == [(0, "Setup"), (found.text.index("刹车"), "刹车")]
    assert found.title == "Setup"  # no title in its properties: its first heading
    titled = read_docx(make_docx(tmp_path / "t.docx", blocks, title="Bike manual"))
    assert titled.title == "Bike manual"


def test_a_broken_docx_is_refused_with_its_name(tmp_path):
    good = make_docx(tmp_path / "good.docx", [("text", "Plug it in.")])
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "cut.docx").write_bytes(good.read_bytes()[:300])
    with pytest.raises(InputError) as caught:
        read_document_folder(folder)
    assert caught.value.message("en").startswith(
        f"{folder / 'cut.docx'}: cannot be read as a document of its kind: "
    )


def test_a_docx_whose_xml_is_damaged_is_refused_with_its_name(tmp_path):
    # A whole zip whose document part is cut: lxml's XMLSyntaxError, not python-docx's own.
    good = make_docx(tmp_path / "good.docx", [("text", "Plug it in.")])
    bad = tmp_path / "damaged.docx"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(bad, "w") as target:
        for item in source.infolist():
            data = source.read(item.filename)
            if item.filename == "word/document.xml":
                data = data[: len(data) // 2]
            target.writestr(item, data)
    with pytest.raises(InputError) as caught:
        read_docx(bad)
    assert caught.value.message("en").startswith(
        f"{bad}: cannot be read as a document of its kind: "
    )


def test_a_folder_of_pdf_word_and_markdown_files(tmp_path):
    make_pdf(tmp_path / "guide.pdf", [PAGE_ONE, PAGE_TWO])
    make_docx(tmp_path / "manual.docx", [("heading1", "Setup"), ("text", "Plug it in.")])
    (tmp_path / "notes.md").write_text("# Notes\n\nIntro.\n\n## Tea\n\n绿茶。\n", encoding="utf-8")
    records = {r.id: r for r in read_document_folder(tmp_path).records}
    assert set(records) == {"guide.pdf", "manual.docx", "notes.md"}
    assert records["guide.pdf"].metadata["format"] == "pdf"
    assert records["guide.pdf"].places["pages"] == [[0, 1], [len("\n".join(PAGE_ONE)) + 2, 2]]
    assert records["manual.docx"].places["sections"] == [[0, "Setup"]]
    text = records["notes.md"].text
    assert records["notes.md"].places["sections"] == [[0, "Notes"], [text.index("## Tea"), "Tea"]]


def test_html_headings_are_sections(tmp_path):
    (tmp_path / "p.html").write_text(
        "<h1>Parking</h1><p>Twenty spaces.</p><h2>Bikes</h2><p>Racks.</p>", encoding="utf-8"
    )
    (record,) = read_document_folder(tmp_path).records
    assert record.places["sections"] == [[0, "Parking"], [record.text.index("Bikes"), "Bikes"]]


def test_a_chunks_place_is_its_pages_and_the_heading_it_is_under():
    meta = {"pages": [[0, 1], [100, 2], [250, 4]], "sections": [[40, "Brakes"], [180, "Tea"]]}
    assert place_of(meta, 0, 30) == Place(1, 1, "")
    assert place_of(meta, 50, 100) == Place(1, 1, "Brakes")  # ends where page 2 begins
    assert place_of(meta, 90, 260) == Place(1, 4, "Brakes")
    assert place_of(meta, 200, 220) == Place(2, 2, "Tea")
    assert place_of({}, 0, 5) == Place() and place_of(meta, None, None) == Place()
    assert place_of(meta, 90, 260).label("en") == "pages 1-4 · Brakes"
    assert place_of(meta, 200, 220).label("zh") == "第 2 页 · Tea"
    assert Place().label("en") == ""
    # A section headed with the document's title (a Markdown file's "# Title") is said once,
    # by the heading's "from: Title" (a user trial read "from: Tea · Tea").
    assert Place(None, None, "Tea").label("en", title="Tea") == ""
    assert Place(2, 2, "Tea").label("en", title="Tea") == "page 2"
    assert Place(2, 2, "Tea").label("en", title="Brakes") == "page 2 · Tea"


def test_markdown_headings_in_code_fences_are_not_sections():
    text = "# Setup\n\n```sh\n# not a heading\n```\n\n## Use\n"
    assert markdown_sections(text) == [(0, "Setup"), (text.index("## Use"), "Use")]


def test_made_files_are_real_pdfs(tmp_path: Path):
    # The hand-written PDF is one that pypdf reads without repairing it.
    from pypdf import PdfReader

    reader = PdfReader(make_pdf(tmp_path / "a.pdf", [PAGE_ONE]), strict=True)
    assert len(reader.pages) == 1
