"""A lead's imports in the app: documents (a zip of a folder, or files) as a new corpus
version, a question file as a new query set, a run as an imported system. Each calls the
import ``qrels import`` calls (``storage.imports``), so the same checks and located errors
apply, and each is one transaction that first checks the acting account is a lead who may
act (``storage.accounts.acting``): bad input or a refusal writes nothing. Uploaded bytes
reach the readers only through ``annotator.app.uploads``."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.engine import Engine

from annotator.app.uploads import document_folder, saved
from pooling.i18n import t
from pooling.readers import InputError
from storage import imports
from storage.accounts import acting
from storage.db import session_scope
from storage.imports import ImportResult

# What each import says it did, and the kind of version it makes (as ``qrels import``).
SAID = {
    "corpus": ("imported_corpus", "kind_corpus_version"),
    "queries": ("imported_queries", "kind_query_set"),
    "run": ("imported_run", "kind_run"),
}


def import_documents(
    engine: Engine,
    files: list[tuple[str, bytes]],
    *,
    version: str,
    chunk_size: int | None = None,
    chunk_overlap: int = 0,
    by: int,
) -> ImportResult:
    """``files`` (name, bytes: zips of a folder, or ``.md``/``.txt``/``.html``/``.pdf``/
    ``.docx`` files) as corpus version ``version``, as ``qrels import corpus FOLDER`` does:
    one document per file, its path in the folder as id, chunked at ``chunk_size``
    characters (800 unless given). Raises ``Refused`` unless ``by`` is a lead who may act,
    ``InputError`` for an unsafe or damaged upload or a bad file (named by its path in the
    upload), ``LocalizedError`` for chunk sizes that make no sense."""
    with session_scope(engine) as session:
        acting(by, "lead", session=session)
        with document_folder(files) as folder:
            try:
                return imports.import_corpus(
                    folder,
                    session=session,
                    version=version.strip(),
                    chunk_size=chunk_size,
                    chunk_overlap=chunk_overlap,
                )
            except InputError as error:
                # The server's folder is no name of the user's: say where in the upload.
                inside = str(folder.path) + "/"
                if error.file == str(folder.path):
                    error.file = str(folder)
                elif error.file.startswith(inside):
                    error.file = error.file[len(inside) :]
                raise


def import_queries(
    engine: Engine, label: str, data: bytes, *, query_set: str, default_split: str = "test", by: int
) -> ImportResult:
    """Question file ``data`` (named ``label``: ``.txt``, ``.csv`` or ``.jsonl``) as query
    set ``query_set``, as ``qrels import queries``. Raises ``Refused`` unless ``by`` is a
    lead who may act, ``InputError`` at the first bad line (naming ``label``)."""
    arguments = {"name": query_set.strip(), "default_split": default_split}
    return _import_upload(engine, label, data, imports.import_queries, arguments, by)


def import_run(
    engine: Engine,
    label: str,
    data: bytes,
    *,
    system: str,
    query_set: str | None = None,
    corpus_version: str | None = None,
    by: int,
) -> ImportResult:
    """Run file ``data`` (named ``label``: TREC, JSONL or CSV) as the ranking of system
    ``system`` over a query set and corpus version, as ``qrels import run``; pools built
    from then on can name it ``run:SYSTEM``. Raises ``Refused`` unless ``by`` is a lead who
    may act, ``InputError`` at the first bad line or unknown id (naming ``label``)."""
    arguments = {"system": system.strip(), "query_set": query_set, "corpus_version": corpus_version}
    return _import_upload(engine, label, data, imports.import_run, arguments, by)


def _import_upload(
    engine: Engine, label: str, data: bytes, function, arguments: dict, by: int
) -> ImportResult:
    """``function(upload, session=…, **arguments)`` on ``data`` saved for the purpose, in
    one transaction that first checks the acting account ``by``."""
    with session_scope(engine) as session, saved(data, label) as upload:
        acting(by, "lead", session=session)
        return function(upload, session=session, **arguments)


def import_summary(result: ImportResult, what: str, lang: str | None = None) -> list[str]:
    """What an import of ``what`` (a key of ``SAID``) did, in ``lang``: its counts, or that
    the same content was there already, then its notes (files passed over and the like)."""
    message, kind = SAID[what]
    notes = [t(key, lang, **params) for key, params in result.notes]
    if not result.created:
        return [t("unchanged", lang, kind=t(kind, lang), name=result.name), *notes]
    counts = {k: f"{v:,}" if isinstance(v, int) else v for k, v in result.counts.items()}
    return [t(message, lang, name=result.name, **counts), *notes]


def upload_name(label: str) -> str:
    """A version's or a system's name suggested from an uploaded file's name: its stem."""
    return Path(label.replace("\\", "/")).stem
