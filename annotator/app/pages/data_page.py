"""Leads: bring data in without a terminal. Documents (a zip of a folder, or files) as a
new corpus version, a question file as a new query set, a run as a system pools can name.
Each calls what ``qrels import`` calls, checked on the server (``annotator.app.
data_imports``); errors and notes are shown as plain text."""

from __future__ import annotations

import streamlit as st

from annotator.app import data_imports, ui
from annotator.pools import pool_building
from pooling.readers import MAX_NAME

user = ui.require("lead")
ui.sidebar(user)


def act(what: str, action, *args, **kwargs) -> None:
    """``action(engine, *args, by=the lead, **kwargs)`` (``ui.act``), then what it did as
    plain text: its counts, then its notes (files passed over and the like)."""
    done, result = ui.act(action, ui.engine(), *args, by=user.id, **kwargs)
    if not done:
        return
    ui.count_afresh()
    first, *notes = data_imports.import_summary(result, what, ui.lang())
    ui.plain(first, "success")
    for note in notes:
        ui.plain(note, "warning")


with st.form("data_documents", clear_on_submit=True):
    st.subheader(ui.t("data_documents_title"))
    files = st.file_uploader(
        ui.t("data_documents_files"),
        type=["zip", "md", "markdown", "txt", "html", "htm", "pdf", "docx"],
        accept_multiple_files=True,
        key="data_documents_files",
    )
    version = st.text_input(ui.t("data_corpus_version"), max_chars=MAX_NAME, key="data_version")
    size = st.number_input(ui.t("data_chunk_size"), min_value=1, value=800, key="data_chunk")
    overlap = st.number_input(ui.t("data_chunk_overlap"), min_value=0, value=0, key="data_overlap")
    if st.form_submit_button(ui.t("data_documents_button"), key="data_documents_submit"):
        if not files:
            st.warning(ui.t("data_no_file"))
        else:
            uploads = [(f.name, f.getvalue()) for f in files]
            name = version.strip() or data_imports.upload_name(uploads[0][0])
            act(
                "corpus",
                data_imports.import_documents,
                uploads,
                version=name,
                chunk_size=int(size),
                chunk_overlap=int(overlap),
            )

with st.form("data_queries", clear_on_submit=True):
    st.subheader(ui.t("data_queries_title"))
    file = st.file_uploader(
        ui.t("data_queries_file"), type=["txt", "csv", "jsonl"], key="data_queries_file"
    )
    query_set = st.text_input(ui.t("data_query_set"), max_chars=MAX_NAME, key="data_query_set")
    if st.form_submit_button(ui.t("data_queries_button"), key="data_queries_submit"):
        if file is None:
            st.warning(ui.t("data_no_file"))
        else:
            name = query_set.strip() or data_imports.upload_name(file.name)
            act("queries", data_imports.import_queries, file.name, file.getvalue(), query_set=name)

query_sets, corpora = pool_building.version_names(ui.engine())  # this run's imports too
with st.form("data_run", clear_on_submit=True):
    st.subheader(ui.t("data_run_title"))
    file = st.file_uploader(ui.t("data_run_file"), key="data_run_file")
    system = st.text_input(ui.t("data_system"), max_chars=MAX_NAME, key="data_system")
    chosen_set = st.selectbox(ui.t("kind_query_set"), query_sets, key="data_run_query_set")
    chosen_corpus = st.selectbox(ui.t("kind_corpus_version"), corpora, key="data_run_corpus")
    if st.form_submit_button(ui.t("data_run_button"), key="data_run_submit"):
        if file is None:
            st.warning(ui.t("data_no_file"))
        elif not query_sets or not corpora:
            st.warning(ui.t("data_needs_versions"))
        else:
            act(
                "run",
                data_imports.import_run,
                file.name,
                file.getvalue(),
                system=system.strip() or data_imports.upload_name(file.name),
                query_set=chosen_set,
                corpus_version=chosen_corpus,
            )

# What is there now, today's imports included, to name in a pool or a run.
none = ui.t("data_none")
ui.plain(
    ui.t(
        "data_versions",
        corpora=", ".join(corpora) or none,
        query_sets=", ".join(query_sets) or none,
    ),
    "info",
)
