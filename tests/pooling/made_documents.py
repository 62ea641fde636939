"""PDF and Word files the tests make, with no PDF library: a PDF written object by object
(Helvetica for Latin text; a Type0 font with a ToUnicode map for Chinese, so that a reader
gets the characters back), a page with no text layer (an image only, as a scan), and a
.docx from python-docx."""

from __future__ import annotations

from pathlib import Path


def _pdf_string(text: str) -> str:
    return "(" + text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)") + ")"


def _content(lines: list[str]) -> bytes:
    """A page's content stream: each line shown in the font that can spell it."""
    parts = []
    y = 760
    for line in lines:
        if line.isascii():
            parts.append(f"BT /F1 12 Tf 72 {y} Td {_pdf_string(line)} Tj ET")
        else:  # two-byte codes equal to the code points, mapped back by ToUnicode
            codes = "".join(f"{ord(c):04X}" for c in line)
            parts.append(f"BT /F2 12 Tf 72 {y} Td <{codes}> Tj ET")
        y -= 18
    return "\n".join(parts).encode("ascii")


SCAN = b"q 100 0 0 100 72 600 cm /Im1 Do Q"  # an image and nothing else: no text layer
TO_UNICODE = b"""/CIDInit /ProcSet findresource begin 12 dict begin begincmap
/CMapName /Identity-UCS def /CMapType 2 def
1 begincodespacerange <0000> <FFFF> endcodespacerange
1 beginbfrange <0000> <FFFF> <0000> endbfrange
endcmap CMapName currentdict /CMap defineresource pop end end"""


def make_pdf(path: Path, pages: list[list[str] | None], title: str | None = None) -> Path:
    """A PDF of ``pages``, each a list of lines, or None for a page that is only an image."""
    objects: list[bytes] = []

    def add(body: bytes) -> int:
        objects.append(body)
        return len(objects)

    catalog = add(b"")  # filled in below
    pages_ref = add(b"")
    helvetica = add(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    cmap = add(b"<< /Length %d >>\nstream\n" % len(TO_UNICODE) + TO_UNICODE + b"\nendstream")
    descendant = add(
        b"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /SimSun /CIDSystemInfo "
        b"<< /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> /DW 1000 >>"
    )
    chinese = add(
        b"<< /Type /Font /Subtype /Type0 /BaseFont /SimSun /Encoding /Identity-H "
        b"/DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>" % (descendant, cmap)
    )
    image = add(
        b"<< /Type /XObject /Subtype /Image /Width 1 /Height 1 /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Length 1 >>\nstream\n\x80\nendstream"
    )
    kids = []
    for lines in pages:
        stream = SCAN if lines is None else _content(lines)
        content = add(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
        kids.append(
            add(
                b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 612 792] /Contents %d 0 R "
                b"/Resources << /Font << /F1 %d 0 R /F2 %d 0 R >> /XObject << /Im1 %d 0 R >> "
                b">> >>" % (pages_ref, content, helvetica, chinese, image)
            )
        )
    # A title in UTF-16BE with its byte-order mark, as PDF writes text that is not Latin-1.
    title_hex = ("FEFF" + title.encode("utf-16-be").hex().upper()) if title else ""
    info = add(b"<< /Title <%s> >>" % title_hex.encode("ascii")) if title else None
    objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_ref
    refs = " ".join(f"{kid} 0 R" for kid in kids).encode()
    objects[pages_ref - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (refs, len(kids))
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    trailer = b"<< /Size %d /Root %d 0 R" % (len(objects) + 1, catalog)
    if info:
        trailer += b" /Info %d 0 R" % info
    out += b"trailer\n" + trailer + b" >>\nstartxref\n%d\n%%%%EOF\n" % xref
    path.write_bytes(bytes(out))
    return path


def encrypt_pdf(source: Path, path: Path, password: str = "secret") -> Path:
    """``source`` encrypted with a user password (RC4: no extra package needed)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(source))
    writer.encrypt(user_password=password, owner_password=password, algorithm="RC4-128")
    with open(path, "wb") as handle:
        writer.write(handle)
    return path


def make_docx(path: Path, blocks: list[tuple[str, str]], title: str | None = None) -> Path:
    """A Word file of ``blocks``: (``heading1``/``heading2``/``text``, text) in order."""
    import docx

    document = docx.Document()
    if title:
        document.core_properties.title = title
    for kind, text in blocks:
        if kind == "text":
            document.add_paragraph(text)
        else:
            document.add_heading(text, level=int(kind[-1]))
    document.save(str(path))
    return path
