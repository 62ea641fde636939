"""An evaluation in words, in the user's language: the lines ``qrels evaluate`` prints and
the ``report.md`` of ``--out`` and the Evaluate page's download, both from the report
dictionary of ``annotator.evaluation.evaluation_report.report``. Pure functions; tests read them.

Query texts, ids and file names come from users: in Markdown they are escaped, so that a
query holding a link, an image or a table row is shown as the text it is."""

from __future__ import annotations

from pooling.i18n import t

SHOWN_IDS = 20  # query ids listed on screen before "(+N more in report.json)"


def num(value: float | None, digits: int = 4) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def interval(low: float | None, high: float | None) -> str:
    return "" if low is None else f"[{num(low)}, {num(high)}]"


def signed(value: float | None) -> str:
    return "-" if value is None else f"{value:+.4f}"


def one_line(text: str) -> str:
    """A query's text on one line."""
    return " ".join(str(text).split())


def group_name(group: str, lang: str | None = None) -> str:
    return t("eval_group_all", lang) if group == "all" else group


def id_list(ids: list[str], lang: str | None = None) -> str:
    """The first ``SHOWN_IDS`` ids, and how many more there are."""
    shown = ", ".join(ids[:SHOWN_IDS])
    rest = len(ids) - SHOWN_IDS
    return f"{shown} {t('eval_more', lang, count=rest)}" if rest > 0 else shown


def run_ids(run: dict, lang: str | None = None) -> str:
    kind = "reduced" if run["reduced_to_documents"] else run["ids"]
    return t(f"eval_ids_{kind}", lang)


def head_lines(data: dict, lang: str | None = None) -> list[str]:
    """The release, what counts, the runs: the lines that start the CLI output and the
    report."""
    release, settings, queries = data["release"], data["settings"], data["queries"]
    lines = [
        t(
            "eval_head",
            lang,
            version=release["version"],
            sha=release["manifest_sha256"][:12],
            corpus=release["corpus_version"],
            level=f"@eval_level_{settings['level']}",
            threshold=settings["relevance_threshold"],
            split=settings["split"] or t("eval_all_splits", lang),
        ),
        t(
            "eval_queries",
            lang,
            scope=queries["in_scope"],
            counted=queries["counted"],
            unanswerable=queries["unanswerable"],
            excluded=len(queries["excluded"]),
            threshold=settings["relevance_threshold"],
        ),
    ]
    if queries["excluded"]:
        excluded = [q["query_id"] for q in queries["excluded"]]
        lines.append("  " + t("eval_left_out", lang, ids=id_list(excluded, lang)))
    lines.append(
        "  "
        + t(
            "eval_population",
            lang,
            counted=queries["counted"],
            without=len(queries["excluded"]),
            answerable=queries["counted"] + len(queries["excluded"]),
        )
    )
    if queries["unanswerable_with_relevant"]:
        marked = id_list(queries["unanswerable_with_relevant"], lang)
        lines.append("  " + t("eval_marked_unanswerable", lang, ids=marked))
    for run in data["runs"]:
        lines.append(
            t(
                "eval_run",
                lang,
                name=run["name"],
                file=run["file"],
                sha=(run["sha256"] or "-")[:12],
                ids=run_ids(run, lang),
                ranked=run["ranked_queries"],
            )
        )
        for key, field in (
            ("eval_without_ranking", "counted_without_ranking"),
            ("eval_not_in_release", "queries_not_in_release"),
        ):
            if run[field]:
                listed = id_list(run[field], lang)
                count = len(run[field])
                lines.append("  " + t(key, lang, run=run["name"], count=count, ids=listed))
    if settings["context_k"]:
        lines.append(t("eval_context", lang, k=settings["context_k"]))
    if settings.get("added_for_gate"):
        lines.append(t("eval_gate_added", lang, metrics=", ".join(settings["added_for_gate"])))
    return lines


def metric_line(row: dict, lang: str | None = None) -> str:
    """``recall@5  0.4123 [0.3890, 0.4370]  micro 0.3950  Judged@5 0.982``, and the mark of
    a figure beyond the context budget."""
    parts = [f"{row['metric']:<12}", num(row["value"]), interval(row["low"], row["high"])]
    if row["micro"] is not None:
        parts.append(t("eval_micro", lang, value=num(row["micro"])))
    parts.append(f"Judged@{row['judged_k']} {num(row['judged'], 3)}")
    if row.get("condensed") is not None:
        parts.append(t("eval_condensed", lang, value=num(row["condensed"])))
    if row.get("beyond_context"):
        parts.append(t("eval_beyond_context", lang))
    return "  ".join(p for p in parts if p)


def unanswerable_lines(data: dict, lang: str | None = None, brief: bool = False) -> list[str]:
    """Per run and group, the top-score figures; ``brief`` leaves out the groups other
    than ``all`` that hold no unanswerable query."""
    lines = []
    for row in data["unanswerable"]:
        if brief and row["group"] != "all" and row["undefined"] == "no_unanswerable":
            continue
        group = group_name(row["group"], lang)
        if row["undefined"]:
            reason = t(f"eval_reason_{row['undefined']}", lang)
            lines.append(
                t("eval_unanswerable_undefined", lang, run=row["run"], group=group, reason=reason)
            )
            continue
        lines.append(
            t(
                "eval_unanswerable_line",
                lang,
                run=row["run"],
                group=group,
                auroc=num(row["auroc"], 3),
                answerable=row["answerable"],
                unanswerable=row["unanswerable"],
                share=f"{row['above_median']:.0%}",
            )
        )
    return lines


def low_judged_lines(
    data: dict, lang: str | None = None, key: str = "eval_low_judged"
) -> list[str]:
    """A warning per run and group whose Judged@k is low; ``key`` the message (the app's
    names the Releases page's coverage upload instead of the command)."""
    return [
        t(
            key,
            lang,
            run=w["run"],
            group=group_name(w["group"], lang),
            judged=", ".join(f"Judged@{k} {num(v, 3)}" for k, v in sorted(w["judged"].items())),
            command=w["command"],
        )
        for w in data["judged_warnings"]
    ]


def low_judged_items(data: dict, lang: str | None = None) -> list[str]:
    """Each run and group whose Judged@k is low, on a line of its own: ``run [group]:
    Judged@k …`` (the list behind the app's one warning)."""
    return [
        f"{w['run']} [{group_name(w['group'], lang)}]: "
        + ", ".join(f"Judged@{k} {num(v, 3)}" for k, v in sorted(w["judged"].items()))
        for w in data["judged_warnings"]
    ]


def verdict(check: dict, gate: dict, lang: str | None = None) -> str:
    """``PASS``, ``FAIL`` or ``not gated (n < 20)``."""
    if not check["gated"]:
        return t("eval_not_gated", lang, min=gate["min_queries"])
    return t("eval_pass" if check["passed"] else "eval_fail", lang)


def gate_lines(gate: dict, lang: str | None = None) -> list[str]:
    lines = [t("eval_gate_title", lang, split=gate["split"])]
    for check in gate["checks"]:
        lines.append(
            "  "
            + t(
                "eval_gate_check",
                lang,
                verdict=verdict(check, gate, lang),
                run=check["run"],
                check=check["check"],
                group=group_name(check["group"], lang),
                difference=signed(check["difference"]),
                interval=interval(check["low"], check["high"]),
                queries=check["queries"],
            )
        )
    failed = [c for c in gate["checks"] if c["gated"] and not c["passed"]]
    if not failed:
        return [*lines, t("eval_gate_passed", lang)]
    first = failed[0]
    group = group_name(first["group"], lang)
    return [
        *lines,
        t("eval_gate_failed", lang, count=len(failed), check=first["check"], group=group),
    ]


def evaluation_lines(data: dict, lang: str | None = None) -> list[str]:
    """Everything ``qrels evaluate`` prints without ``--json``."""
    settings = data["settings"]
    lines = head_lines(data, lang)
    summary, comparisons = data["summary"], data["comparisons"]
    runs = [run["name"] for run in data["runs"]]
    for group in dict.fromkeys(row["group"] for row in summary):
        rows = [r for r in summary if r["group"] == group]
        lines += [
            "",
            t("eval_group", lang, group=group_name(group, lang), queries=rows[0]["queries"]),
        ]
        for run in runs:
            lines.append(f"  {run}")
            lines += ["    " + metric_line(r, lang) for r in rows if r["run"] == run]
        for run in runs[1:]:
            versus = [c for c in comparisons if c["group"] == group and c["run"] == run]
            lines.append(
                "  " + t("eval_versus", lang, run=run, baseline=runs[0], test="@eval_test_name")
            )
            lines += [
                f"    {c['metric']:<12}  {signed(c['difference'])}  "
                f"{interval(c['low'], c['high'])}  p={c['p_value']:.3f}  "
                f"Holm {c['p_holm']:.3f}  BH {c['p_bh']:.3f}"
                for c in versus
            ]
    if comparisons:
        lines += ["", t("eval_adjusted", lang, count=len(comparisons))]
    lines += ["", t("eval_unanswerable_title", lang), *unanswerable_lines(data, lang, True)]
    lines += low_judged_lines(data, lang)
    # On screen, the first metric's movers over all queries; the report holds every one.
    first = settings["metrics"][0]
    movers = [m for m in data["movers"] if m["group"] == "all" and m["metric"] == first]
    for key in dict.fromkeys((m["run"], m["metric"], m["change"]) for m in movers):
        run, metric, change = key
        lines += [
            "",
            t(
                "eval_movers",
                lang,
                run=run,
                baseline=runs[0],
                metric=metric,
                group=group_name("all", lang),
                change=t(f"eval_{change}", lang),
            ),
        ]
        lines += [
            f"  {m['query_id']}  {signed(m['difference'])}  {one_line(m['text'])}"
            for m in movers
            if (m["run"], m["metric"], m["change"]) == key
        ]
    if data["gate"]:
        lines += ["", *gate_lines(data["gate"], lang)]
    lines += ["", t("eval_definitions", lang)]
    lines += [
        f"  {t(f'metric_def_{f}', lang, t=settings['relevance_threshold'])}"
        for f in data["definitions"]
    ]
    return lines


# -- tables: report.md and the Evaluate page -------------------------------------------------


def _runs(data: dict, lang: str | None) -> list[list[object]]:
    return [
        [r["name"], r["file"], r["sha256"] or "-", run_ids(r, lang), r["ranked_queries"]]
        for r in data["runs"]
    ]


def _figures(data: dict, lang: str | None) -> list[list[object]]:
    return [
        [
            r["run"],
            group_name(r["group"], lang),
            r["metric"],
            r["queries"],
            num(r["value"]),
            interval(r["low"], r["high"]),
            num(r["micro"]) if r["micro"] is not None else "",
            f"{num(r['judged'], 3)} (k={r['judged_k']})",
            num(r["condensed"]) if r.get("condensed") is not None else "",
            t("eval_beyond_context", lang) if r.get("beyond_context") else "",
        ]
        for r in data["summary"]
    ]


def _comparisons(data: dict, lang: str | None) -> list[list[object]]:
    return [
        [
            c["run"],
            group_name(c["group"], lang),
            c["metric"],
            c["queries"],
            num(c["baseline_value"]),
            num(c["value"]),
            signed(c["difference"]),
            interval(c["low"], c["high"]),
            f"{c['p_value']:.3f}",
            f"{c['p_holm']:.3f}",
            f"{c['p_bh']:.3f}",
        ]
        for c in data["comparisons"]
    ]


def _movers(data: dict, lang: str | None) -> list[list[object]]:
    return [
        [
            m["run"],
            group_name(m["group"], lang),
            m["metric"],
            t(f"eval_{m['change']}", lang),
            m["query_id"],
            one_line(m["text"]),
            num(m["baseline"]),
            num(m["value"]),
            signed(m["difference"]),
        ]
        for m in data["movers"]
    ]


TABLES = {"runs": _runs, "figures": _figures, "comparisons": _comparisons, "movers": _movers}


def table(kind: str, data: dict, lang: str | None = None) -> tuple[list[str], list[list[object]]]:
    """The header (message ``eval_md_<kind>_header``) and rows of one of the report's
    tables: ``runs``, ``figures``, ``comparisons`` or ``movers``."""
    return t(f"eval_md_{kind}_header", lang).split("|"), TABLES[kind](data, lang)


# What could start markup inside a line (a link, an image, emphasis, code, a cell, HTML).
_MARKDOWN_SPECIAL = set("\\`*_[]<>#!|~$&")


def md_text(value: object) -> str:
    """``value`` as literal Markdown text on one line: every character Markdown or HTML
    could read as markup is escaped."""
    text = one_line("" if value is None else str(value))
    return "".join("\\" + c if c in _MARKDOWN_SPECIAL else c for c in text)


def md_table(kind: str, data: dict, lang: str | None = None) -> list[str]:
    """One of the report's tables (``table``) in Markdown, every cell escaped."""
    header, rows = table(kind, data, lang)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(md_text(cell) for cell in row) + " |" for row in rows]
    return lines


def markdown(data: dict, lang: str | None = None) -> str:
    """``report.md``: everything in the report dictionary, as headings, lists and tables."""
    settings = data["settings"]

    def section(key: str) -> list[str]:
        return ["", f"## {t(key, lang)}", ""]

    lines = [f"# {md_text(t('eval_md_title', lang, version=data['release']['version']))}", ""]
    lines += [f"- {md_text(line.strip())}" for line in head_lines(data, lang)]
    lines += section("eval_md_runs") + md_table("runs", data, lang)
    lines += section("eval_md_definitions")
    lines += [
        f"- {md_text(t(f'metric_def_{f}', lang, t=settings['relevance_threshold']))}"
        for f in data["definitions"]
    ]
    lines += section("eval_md_figures") + md_table("figures", data, lang)
    warnings = low_judged_lines(data, lang)
    lines += ["", *(f"- {md_text(w)}" for w in warnings)] if warnings else []
    lines += section("eval_md_unanswerable")
    lines += [f"- {md_text(line)}" for line in unanswerable_lines(data, lang)]
    if data["comparisons"]:
        lines += section("eval_md_comparisons") + [t("eval_test_name", lang), ""]
        lines += [md_text(t("eval_adjusted", lang, count=len(data["comparisons"]))), ""]
        lines += md_table("comparisons", data, lang)
        lines += section("eval_md_movers") + md_table("movers", data, lang)
    if data["gate"]:
        lines += section("eval_md_gate")
        lines += [f"- {md_text(line.strip())}" for line in gate_lines(data["gate"], lang)]
    return "\n".join(lines) + "\n"
