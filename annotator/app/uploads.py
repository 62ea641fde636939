"""Files a browser sends. The client's name for a file is only a label for messages: the
bytes go to a file the server names (``tempfile``), removed afterwards, and a file over
the size limit is refused before it is written."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pooling.i18n import LocalizedError
from pooling.settings import current

LIMIT_MB = current().upload_limit_mb  # also Streamlit's, at serve
LIMIT_BYTES = LIMIT_MB * 1024 * 1024


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
    handle, path = tempfile.mkstemp(prefix="qrels-upload-")
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
        yield Upload(Path(path), label)
    finally:
        os.unlink(path)
