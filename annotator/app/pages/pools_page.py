"""Leads: build and top up pools, and see how each is made up (sizes per query, each
system's contribution). Building runs the retrievers in this request; for large corpora the
CLI (`qrels pool build`) shows progress bars."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from annotator.app import charts, guide_charts, ui
from annotator.labeling import sampling
from annotator.pools import pool_building
from annotator.releases.carry import CarryStatus, carry_status
from pooling.chunking import describe
from pooling.pool_config import is_active
from pooling.readers import MAX_NAME


def build_form(lead_id: int) -> None:
    query_sets, corpora = pool_building.version_names(ui.engine())
    with st.expander(ui.t("build_pool_title")), st.form("build_pool"):
        name = st.text_input(ui.t("field_pool_name"), max_chars=MAX_NAME, key="build_pool_name")
        query_set = st.selectbox(ui.t("kind_query_set"), query_sets)
        corpus_version = st.selectbox(ui.t("kind_corpus_version"), corpora)
        systems = st.text_input(
            ui.t("field_systems"), value="bm25,vector", key="build_pool_systems"
        )
        depth = st.number_input(ui.t("field_depth"), min_value=1, value=10, key="build_depth")
        encoder = encoder_fields()
        overlap = st.number_input(ui.t("field_overlap"), min_value=1, value=2)
        active = st.checkbox(ui.t("field_active"))
        budget = st.number_input(ui.t("field_budget"), min_value=1, value=50)
        stop_below = st.number_input(ui.t("field_stop_below"), min_value=0.0, value=1.0)
        if st.form_submit_button(ui.t("build_button"), key="build_pool_submit"):
            done, result = ui.act(
                pool_building.build_pool,
                ui.engine(),
                name.strip(),
                systems=systems,
                depth=None if active else int(depth),
                budget=int(budget) if active else None,
                active=active,
                stop_below=float(stop_below),
                overlap=int(overlap),
                query_set=query_set,
                corpus_version=corpus_version,
                options=pool_building.encoder_options(*encoder),
                by=lead_id,
            )
            if done:
                ui.pool_changed(result, overlap=int(overlap))


def encoder_fields() -> tuple[str, str, str, str]:
    """The vector system's encoder, as ``qrels pool build --encoder`` chooses it: its kind,
    the model (a folder for st:, a name for openai:), and for openai: the server's URL and
    the *name* of the variable holding its key (the key is read on the server, never here)."""
    labels = {
        kind: ui.t(f"encoder_{kind.replace('-', '_')}") for kind in pool_building.ENCODER_KINDS
    }
    kind = st.selectbox(
        ui.t("field_encoder"),
        pool_building.ENCODER_KINDS,
        format_func=lambda k: labels[k],  # in the page's language, bound now
        key="build_encoder",
    )
    model = st.text_input(ui.t("field_encoder_model"), key="build_encoder_model")
    url = st.text_input(ui.t("field_embeddings_url"), key="build_embeddings_url")
    variable = st.text_input(
        ui.t("judge_key_label"), help=ui.t("judge_key_help"), key="build_api_key_env"
    )
    return str(kind), model, url, variable


def topup_form(pool_name: str, lead_id: int) -> None:
    with st.expander(ui.t("topup_title")), st.form("topup_pool"):
        systems = st.text_input(ui.t("field_systems"), key="topup_pool_systems")
        depth = st.number_input(ui.t("field_depth"), min_value=1, value=10, key="topup_depth")
        if st.form_submit_button(ui.t("topup_button"), key="topup_pool_submit"):
            done, result = ui.act(
                pool_building.topup_pool,
                ui.engine(),
                pool_name,
                systems=systems,
                depth=int(depth),
                by=lead_id,
            )
            if done:
                ui.pool_changed(result)


# The sample designs as ``draw_sample`` takes them (None: uniform) and as records name them.
DESIGNS: dict[str, tuple[str | None, str]] = {
    "uniform": (None, "uniform"),
    "slice": ("slice", "stratified"),
    "uncertainty": ("uncertainty", "uncertainty"),
}


def sample_form(pool_name: str, lead_id: int) -> None:
    """Draw the queries people judge completely, as ``qrels sample`` does; once people have
    judged some of the sample in force, a new draw needs a reason ("why")."""
    judged = sampling.judged_in_sample(ui.engine(), pool_name)
    with st.expander(ui.t("sample_title")), st.form("draw_sample"):
        size = st.text_input(ui.t("sample_size_label"), value="20%", key="sample_size")
        labels = {d: ui.t(f"sample_design_{named}") for d, (_, named) in DESIGNS.items()}
        design = st.selectbox(
            ui.t("sample_by_label"),
            list(DESIGNS),
            format_func=lambda d: labels[d],  # in the page's language, bound now
            key="sample_design",
        )
        model = st.text_input(ui.t("sample_model_label"), key="sample_model")
        if judged:
            st.warning(ui.t("sample_judged_note", judged=int(judged)))
        why = st.text_area(ui.t("sample_why_label"), key="sample_why")
        if st.form_submit_button(ui.t("sample_button"), key="sample_submit"):
            done, record = ui.act(
                sampling.draw_sample,
                ui.engine(),
                pool_name,
                size,
                by=DESIGNS[str(design)][0],
                model=model.strip() or None,
                lead=lead_id,
                redraw=judged > 0,
                why=why.strip() or None,
            )
            if not done:
                return
            design_name = ui.t(f"sample_design_{record.design}")
            ui.plain(
                ui.t(
                    "sample_drawn",
                    pool=record.pool,
                    size=record.size,
                    population=record.population,
                    design=design_name,
                    seed=record.seed,
                ),
                "success",
            )
            ui.plain(ui.t("sample_members", ids=", ".join(m.query_id for m in record.members)))


def carried_section(pool_name: str) -> None:
    """Where a carried pool's judgments came from, per mapping class how many people have
    re-judged, and the judged documents that were not mapped."""
    status = carry_status(ui.engine(), pool_name)
    if status is None:
        return
    with st.container(key="carried"):  # a test finds its tables here
        carried_tables(status)


def carried_tables(status: CarryStatus) -> None:
    lineage = status.lineage
    st.subheader(ui.t("carry_section"))
    st.text(  # names a user chose: shown as plain text
        ui.t(
            "carry_title",
            release=lineage["release"],
            corpus_version=lineage["corpus_version"]["name"],
            chunking=describe(lineage["chunking"]),
            min_overlap=lineage["min_overlap"],
        )
    )
    st.dataframe(
        pd.DataFrame(
            {
                ui.t("col_mapping"): [ui.t(f"mapping_{row.mapping}") for row in status.classes],
                ui.t("col_judged_release"): [row.judged for row in status.classes],
                ui.t("col_candidates"): [row.candidates for row in status.classes],
                ui.t("col_re_judged"): [row.re_judged for row in status.classes],
            }
        ),
        hide_index=True,
    )
    documents = [
        (ui.t(f"mapping_{reason}"), doc)
        for reason, docs in status.documents.items()
        for doc in docs
    ]
    if documents:
        st.subheader(ui.t("carry_documents_title"))
        columns = [ui.t("col_reason"), ui.t("col_document")]
        st.dataframe(pd.DataFrame(documents, columns=columns), hide_index=True)
    with st.expander(ui.t("carry_mappings_title")):
        rows: list[tuple] = [
            (c.query_id, c.chunk_id, c.grade, ui.t(f"mapping_{c.mapping}"), *edge)
            for c in status.chunks
            for edge in list[tuple]([(o.chunk_id, o.share_old, o.share_new) for o in c.overlaps])
            or [(None, None, None)]
        ]
        names = (
            "query",
            "old_chunk",
            "released_grade",
            "mapping",
            "new_chunk",
            "share_old",
            "share_new",
        )
        st.dataframe(
            pd.DataFrame(rows, columns=[ui.t(f"col_{name}") for name in names]), hide_index=True
        )


user = ui.require("lead")
ui.sidebar(user)
build_form(user.id)
pool_name = ui.choose_pool()
topup_form(pool_name, user.id)
sample_form(pool_name, user.id)
moment, figures = ui.figures("pools", pool_name)
report = figures.report
ui.plain(
    ui.t(
        "pool_show_head",
        name=pool_name,
        systems=report.config.get("systems_spec", ""),
        strategy=f"@pool_strategy_{report.config.get('strategy')}",
        size=report.config.get("size"),
        overlap=report.overlap,
    )
)
ui.counted_at(moment)
charts.show("systems", charts.systems, figures.systems, ui.t("chart_systems"))
charts.show("combinations", charts.upset, figures.combinations, ui.t("chart_combinations"))
sizes = pd.DataFrame({"query": list(report.sizes), "candidates": list(report.sizes.values())})
st.dataframe(charts.labelled(sizes), hide_index=True)
if is_active(report.config):
    # Where each query stands against the stopping rule: the lead decides when to top up.
    _, status = ui.figures("active", pool_name)
    charts.show("active", charts.active, status, ui.t("active_title"))
    _, progress = ui.figures("guide", pool_name)
    if not progress.empty:  # a model guides the pool and people judged something
        last = progress.iloc[-1]
        ui.plain(
            ui.t(
                "guide_summary",
                model=report.config["active"]["guide"],
                per_hundred=f"{last['relevant_per_100']:.1f}",
                kappa="-" if pd.isna(last["model_kappa"]) else f"{last['model_kappa']:.2f}",
                interval=""
                if pd.isna(last["kappa_low"])
                else f" [{last['kappa_low']:.2f}, {last['kappa_high']:.2f}]",
                items=int(last["judged"]),
                left="-" if status["estimate"].isna().all() else f"{status['estimate'].sum():.1f}",
            )
        )
        charts.show("guide", guide_charts.guide_progress, progress, ui.t("guide_title"))
carried_section(pool_name)
