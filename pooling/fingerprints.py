"""A file's content identity, whatever its BOM, line endings or JSON spacing: the sha256 of
its records in canonical JSON (``fingerprint``, or ``Fingerprint`` a record at a time), so
that importing the same content again is a no-op and different content under the same
version name is refused (``storage.imports``)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict


def _canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode()


class Fingerprint:
    """``fingerprint`` taken one record at a time, for files too large to hold: add every
    record, then ``hexdigest``."""

    def __init__(self) -> None:
        self._sha = hashlib.sha256(b"[[")
        self._empty = True

    def add(self, record) -> None:
        if not self._empty:
            self._sha.update(b",")
        self._empty = False
        # Where a record was read (its line, its file in a folder) is not its content.
        content = {k: v for k, v in asdict(record).items() if k not in ("line", "file", "places")}
        self._sha.update(_canonical(content))

    def hexdigest(self, *extra: object) -> str:
        sha = self._sha.copy()
        sha.update(b"]")
        for value in extra:
            sha.update(b"," + _canonical(value))
        sha.update(b"]")
        return sha.hexdigest()


def fingerprint(records: list, *extra: object) -> str:
    """sha256 of records (dataclasses, without their line numbers) and any extra values, so
    that the same content hashes the same whatever its BOM, line endings or JSON spacing:
    the canonical JSON of ``[[record, ...], extra, ...]``."""
    digest = Fingerprint()
    for record in records:
        digest.add(record)
    return digest.hexdigest(*extra)
