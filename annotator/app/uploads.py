"""Files a browser sends. The client's name for a file is only a label for messages: the
bytes go to a file the server names (``tempfile``), removed afterwards, and a file over
the size limit is refused before it is written.

Documents are the one exception, since a document's id is its path in its folder: they
are unpacked (``document_folder``) into a folder the server names, each name checked to
be a plain relative path inside it first, each file created new, never through a link,
and the whole capped in members and in bytes as they are written."""

from __future__ import annotations

import io
import os
import re
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO

from pooling.i18n import LocalizedError
from pooling.readers import InputError
from pooling.settings import current

LIMIT_MB = current().upload_limit_mb  # also Streamlit's, at serve
LIMIT_BYTES = LIMIT_MB * 1024 * 1024
_PLAIN_SUFFIX = re.compile(r"\.[a-z0-9]{1,8}")


class Upload(os.PathLike):
    """A saved upload: opened at its server-side ``path``, named ``label`` in messages
    (``str()``), so that a reader's located errors name the file the user chose."""

    def __init__(self, path: Path, label: str) -> None:
        self.path, self.label = path, label

    def __fspath__(self) -> str:
        return str(self.path)

    def __str__(self) -> str:
        return self.label

    @property
    def stem(self) -> str:
        """The label without its extension, e.g. a run's name."""
        return Path(self.label).stem or "upload"


@contextmanager
def saved(data: bytes, label: str, limit: int | None = None) -> Iterator[Upload]:
    """``data`` in a temporary file of the server's naming, for the duration of the block.
    Raises ``LocalizedError``, writing nothing, when it is larger than ``limit`` bytes
    (default ``LIMIT_BYTES``)."""
    limit = LIMIT_BYTES if limit is None else limit
    if len(data) > limit:
        raise LocalizedError("upload_too_large", file=label, limit=f"{limit / 2**20:.3g}")
    # The label's extension tells a reader the format (.txt, .csv); only a plain one is kept.
    suffix = PurePosixPath(label).suffix.lower()
    handle, path = tempfile.mkstemp(
        prefix="qrels-upload-", suffix=suffix if _PLAIN_SUFFIX.fullmatch(suffix) else ""
    )
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        yield Upload(Path(path), label)
    finally:
        os.unlink(path)


# A zip of documents is unpacked within these, counted as it is written (its own header
# may lie): a zip bomb stops at the cap, not when the disk is full.
MEMBERS_LIMIT = 10_000
UNPACKED_BYTES = 4 * LIMIT_BYTES
DOCUMENTS_SUFFIX = ".zip"
_LINK = 0o120000  # S_IFLNK in a member's Unix mode (the high bits of ``external_attr``)
_UTF8_NAME = 0x800  # general purpose bit 11: the member's name is UTF-8
# Tried in turn for a name without that bit: zip on Linux and macOS writes UTF-8 without
# saying so, Windows in Chinese writes the ANSI code page (GBK); cp437, the format's own
# default, is what zipfile read, and stands when neither fits.
_UNFLAGGED_NAMES = ("utf-8", "gbk")


def _member_name(member: zipfile.ZipInfo) -> str:
    """A member's name as its writer meant it. ``zipfile`` reads a name without the UTF-8
    bit as cp437, which made ``faq/清洁.md`` of a zip made on Linux ``faq/µ╕àµ┤ü.md``, a
    document id no run names."""
    if member.flag_bits & _UTF8_NAME:
        return member.filename
    raw = member.filename.encode("cp437")
    for encoding in _UNFLAGGED_NAMES:
        try:
            return raw.decode(encoding)
        except UnicodeDecodeError:
            continue
    return member.filename


def _member_parts(name: str, label: str) -> list[str]:
    """The parts of a zip member's or a file's name as a relative path, every one a plain
    name; ``InputError`` for an absolute name, ``..``, a drive or a backslash (a separator
    on Windows), an empty or a NUL-holding name."""
    parts = [part for part in name.split("/") if part not in ("", ".")]
    unsafe = (
        not parts
        or name.startswith("/")
        or "\\" in name
        or "\0" in name
        or ":" in parts[0]
        or any(part == ".." for part in parts)
    )
    if unsafe:
        raise InputError(label, "upload_member_unsafe", member=name)
    return parts


def _write_member(root: Path, parts: list[str], source: IO[bytes], budget: list[int], label: str):
    """Copy ``source`` to ``root/parts`` (folders made as needed, the file new: never
    through a link, never over another), taking what it writes from ``budget[0]``."""
    target = root.joinpath(*parts)
    target.parent.mkdir(parents=True, exist_ok=True)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    try:
        handle = os.open(target, flags, 0o600)
    except FileExistsError:
        raise InputError(label, "upload_member_twice", member="/".join(parts)) from None
    with os.fdopen(handle, "wb") as file:
        while block := source.read(1 << 16):
            budget[0] -= len(block)
            if budget[0] < 0:
                limit = f"{UNPACKED_BYTES / 2**20:.3g}"
                raise InputError(label, "upload_unpacked_too_large", limit=limit)
            file.write(block)


def _unzip(data: bytes, label: str, root: Path, budget: list[int]) -> None:
    """The members of zip ``data`` as files under ``root``, each checked first (no
    absolute path, no ``..``, no link; at most ``MEMBERS_LIMIT``); folders and macOS's
    ``__MACOSX`` resource forks left out."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise InputError(label, "upload_not_a_zip") from None
    with archive:
        members = [m for m in archive.infolist() if not m.is_dir()]
        if len(members) > MEMBERS_LIMIT:
            raise InputError(label, "upload_too_many_members", limit=MEMBERS_LIMIT)
        checked = []
        for member in members:
            name = _member_name(member)
            parts = _member_parts(name, label)
            if (member.external_attr >> 16) & 0o170000 == _LINK:
                raise InputError(label, "upload_member_link", member=name)
            checked.append((member, parts))
        for member, parts in checked:
            if parts[0] == "__MACOSX":
                continue
            try:
                with archive.open(member) as source:
                    _write_member(root, parts, source, budget, label)
            except (zipfile.BadZipFile, NotImplementedError, RuntimeError, EOFError):
                # a damaged member, an unknown compression, an encrypted one
                name = "/".join(parts)
                raise InputError(label, "upload_member_unreadable", member=name) from None


@contextmanager
def document_folder(files: list[tuple[str, bytes]]) -> Iterator[Upload]:
    """A folder of the server's naming holding ``files`` (client name, bytes) for the
    duration of the block, as an ``Upload`` named by the uploads' names: each ``.zip``
    unpacked into it, each other file at its own name (its last part only), so that a
    document's id is its path in the zip or its file's name, as ``qrels import corpus
    FOLDER`` gives them. A zip of one folder stands for that folder (its name is not part
    of the ids). Raises ``InputError`` naming the upload for a name that would leave the
    folder, a link, too many members, more than ``UNPACKED_BYTES`` unpacked in all, a
    damaged zip, or two files of one name; the folder is removed whatever happens."""
    root = Path(tempfile.mkdtemp(prefix="qrels-documents-"))
    try:
        budget = [UNPACKED_BYTES]
        for label, data in files:
            if len(data) > LIMIT_BYTES:
                raise LocalizedError("upload_too_large", file=label, limit=f"{LIMIT_MB:.3g}")
            if label.lower().endswith(DOCUMENTS_SUFFIX):
                _unzip(data, label, root, budget)
            else:
                name = PurePosixPath(label.replace("\\", "/")).name or label
                parts = _member_parts(name, label)
                _write_member(root, parts, io.BytesIO(data), budget, label)
        entries = list(root.iterdir())
        folder = entries[0] if len(entries) == 1 and entries[0].is_dir() else root
        yield Upload(folder, ", ".join(label for label, _ in files))
    finally:
        shutil.rmtree(root, ignore_errors=True)
