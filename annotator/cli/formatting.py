"""What the commands print, as pure functions from results to lines of text in the user's
language. No click and no database in here: tests read the lines these return."""

from __future__ import annotations

from pooling.chunking import describe
from pooling.i18n import t


def number(value: int) -> str:
    return f"{value:,}"


def part_of(part: int, whole: int) -> str:
    """``part`` of ``whole`` as a whole percentage rounded down, so that 100% means all of
    it and 0% none: 498,000 of 500,000 is 99%, not 100%; "<1%" for a part under one."""
    if not whole:
        return "-"
    if 0 < part < whole / 100:
        return "<1%"
    return f"{part * 100 // whole}%"


def _section(title_key: str, lines: list[str]) -> list[str]:
    """A blank line, a heading, and its lines indented (or "(none)")."""
    return ["", t(title_key), *(f"  {line}" for line in lines or [t("status_none")])]


def _set_apart(pool) -> str:
    """How many of a pool's candidates nobody is asked about (gold items, an active
    pool's not yet chosen), when some are: the figure that the pool's build reported
    counts them, the status and the Team progress page do not."""
    if pool.pooled is None or pool.pooled <= pool.candidates:
        return ""
    apart = pool.pooled - pool.candidates
    return t("status_pool_set_apart", pooled=number(pool.pooled), apart=number(apart))


def status_lines(summary, url: str, schema: str | None) -> list[str]:
    """``qrels status``: ``summary`` is ``storage.status.Status``."""
    lines = [t("status_database", url=url, schema=schema)]
    if not summary.corpus_versions and not summary.query_sets:
        return [*lines, t("status_empty")]
    corpora = [
        t(
            "status_corpus_line",
            name=cv.name,
            documents=number(cv.documents),
            chunks=number(cv.chunks),
            chunking=describe(cv.chunking),
        )
        for cv in summary.corpus_versions
    ]
    query_sets = []
    for qs in summary.query_sets:
        query_sets.append(
            t(
                "status_query_line",
                name=qs.name,
                queries=number(qs.queries),
                dev=number(qs.dev),
                test=number(qs.test),
                unanswerable=number(qs.unanswerable),
                judgments=number(qs.judgments),
                judged=number(qs.judged_queries),
            )
        )
        if qs.slices:
            slices = ", ".join(f"{k} {v}" for k, v in qs.slices.items())
            query_sets.append("  " + t("status_slices", slices=slices))
        if qs.judgments_by_annotator:
            people = ", ".join(f"{k} {number(v)}" for k, v in qs.judgments_by_annotator.items())
            query_sets.append("  " + t("status_by_annotator", people=people))
    systems = [
        t("status_system_line", name=name, kind=kind, entries=number(entries))
        for name, kind, entries in summary.systems
    ]
    pools = [
        t(
            "status_pool_line",
            name=pool.name,
            query_set=pool.query_set,
            corpus_version=pool.corpus_version,
            candidates=number(pool.candidates),
            complete=number(pool.complete),
            overlap=pool.overlap,
            systems=pool.systems or "-",
            percent=part_of(pool.complete, pool.candidates),
        )
        + _set_apart(pool)
        for pool in summary.pools
    ]
    users = t(
        "status_users",
        leads=summary.users.get("lead", 0),
        annotators=summary.users.get("annotator", 0),
    )
    if any(summary.without_password.values()):
        users += t(
            "status_users_without_password",
            people=summary.without_password.get("human", 0),
            models=summary.without_password.get("model", 0),
        )
    return [
        *lines,
        *_section("status_corpus_versions", corpora),
        *_section("status_query_sets", query_sets),
        *_section("status_systems", systems),
        *_section("status_pools", pools),
        "",
        users,
    ]


def import_lines(result, message: str, kind: str | None = None) -> list[str]:
    """What an import did; ``kind`` names the version for the no-op message (None for
    judgments, which have no version of their own)."""
    lines = [t("user_created", name=result.created_user)] if result.created_user else []
    notes = [t(key, **params) for key, params in result.notes]
    if result.created:
        counts = {k: number(v) if isinstance(v, int) else v for k, v in result.counts.items()}
        return [*lines, t(message, name=result.name, **counts), *notes]
    if kind is None:
        return [*lines, t("judgments_unchanged", name=result.name), *notes]
    return [*lines, t("unchanged", kind=t(kind), name=result.name), *notes]


def agreement_lines(reports: list) -> list[str]:
    """``qrels agreement``: ``reports`` are ``annotator.quality.agreement.AgreementReport``."""
    lines = []
    for report in reports:
        lines.append(
            t(
                "agreement_group",
                group=report.group,
                items=report.items,
                annotators=", ".join(report.annotators),
            )
        )
        lines.append("  " + t("alpha_line", value=report.alpha.text()))
        for pair in report.pairs:
            kappas = ", ".join(f"{k} {v.text()}" for k, v in pair.kappas.items())
            lines.append(
                "  "
                + t(
                    "agreement_pair",
                    a=pair.annotators[0],
                    b=pair.annotators[1],
                    shared=pair.shared,
                    percent=pair.percent.text(),
                    kappas=kappas,
                )
            )
    return lines


def calibration_lines(result, release: str) -> list[str]:
    """``qrels calibrate``: ``result`` is ``annotator.judge.calibration.Calibration``."""
    lines = [t("calibration_head", judge=result.judge, release=release, shared=result.shared)]
    lines += [f"  kappa {kind}: {figure.text()}" for kind, figure in result.kappas.items()]
    lines.append("  " + t("calibration_confusion"))
    lines += [f"    {grade}: {row}" for grade, row in enumerate(result.confusion)]
    for tag, figures in result.per_slice.items():
        lines.append(
            "  "
            + t(
                "calibration_slice",
                slice=tag,
                shared=figures["shared"],
                kappa=figures["quadratic"].text(),
            )
        )
    for mapping, figures in result.per_class.items():
        lines.append(
            "  "
            + t(
                "calibration_class",
                mapping=t(f"mapping_{mapping}"),
                shared=figures["shared"],
                same=f"{figures['same_grade']:.0%}",
                gap=f"{figures['mean_gap']:.2f}",
                kappa=figures["quadratic"].text(),
            )
        )
    lines += ["  " + t("calibration_difference", **row) for row in result.differences]
    return lines


def coverage_lines(report, ks: list[int]) -> list[str]:
    """``qrels coverage``: ``report`` is ``annotator.pools.judged.CoverageReport``."""
    lines = [f"Judged@{k}: {value:.3f}" for k, value in report.overall.items()]
    lines += [
        f"  {row.query_id}\tJudged@{row.k}\t{row.judged}/{row.retrieved}"
        for row in report.per_query.itertuples()
    ]
    lines.append(t("coverage_unjudged", count=len(report.unjudged), k=ks[-1]))
    lines += [
        f"  {query_id}\t{chunk_id}\t{t('rank_at', rank=rank)}"
        for query_id, chunk_id, rank, _ in report.unjudged
    ]
    return lines


def diff_lines(change) -> list[str]:
    """``qrels release diff``: ``change`` is ``annotator.releases.releases.ReleaseDiff``. The
    figures first, at full precision (Python's shortest exact form of each float), then the
    counts and every added, removed and changed judgment."""
    lines = []
    if change.level == "document":
        old, new = change.corpus_versions
        lines.append(t("diff_by_document", old=old, new=new))
    lines += [
        f"{name}: {before!r} -> {after!r} ({after - before:+})"
        for name, (before, after) in change.metrics.items()
    ]
    if change.counted is not None:
        lines.append(t("diff_counted", before=change.counted[0], after=change.counted[1]))
    lines.append(
        t(
            "diff_counts",
            added=len(change.added),
            removed=len(change.removed),
            changed=len(change.changed),
        )
    )
    lines += [f"+ {q} {c} {g}" for q, c, g in change.added]
    lines += [f"- {q} {c} {g}" for q, c, g in change.removed]
    lines += [f"~ {q} {c} {old} -> {new}" for q, c, old, new in change.changed]
    return lines


def release_lines(version: str, folder, manifest: dict) -> list[str]:
    counts = manifest["counts"]
    lines = [
        t(
            "release_written",
            version=version,
            graded=counts["judged_candidates"],
            per_grade=t("list_separator").join(
                t("release_per_grade", grade=grade, count=number(count))
                for grade, count in sorted(counts["per_grade"].items())
            ),
            unresolved=counts["unresolved_left_out"],
            without_grade_2=counts["queries_without_grade_2"],
            folder=folder,
        )
    ]
    lineage = manifest.get("derived_from")
    if lineage is not None:
        lines.append(
            t(
                "release_derived",
                release=lineage["release"],
                corpus_version=lineage["corpus_version"]["name"],
                accepted=lineage["accepted_carried"],
                refused=lineage["refused_carried_test_split"],
            )
        )
    return lines


LISTED_DOCUMENTS = 10  # documents named per reason; the rest are counted


def carry_lines(result, overlap: int) -> list[str]:
    """``qrels carry``: ``result`` is ``annotator.releases.carry.CarryResult``."""
    lines = [
        t(
            "carry_head",
            release=result.release,
            corpus_version=result.pool_version,
            pool=result.pool.name,
            candidates=number(result.pool.added),
            queries=number(result.pool.queries),
            overlap=overlap,
            judged=number(sum(result.counts.values())),
        )
    ]
    for name, count in result.counts.items():
        documents = result.documents.get(name)
        if documents is None:  # a mapping class: always shown
            lines.append("  " + t("carry_class", mapping=t(f"mapping_{name}"), count=number(count)))
        elif count:  # why judged candidates were not mapped, and their documents
            shown = ", ".join(documents[:LISTED_DOCUMENTS])
            if len(documents) > LISTED_DOCUMENTS:
                shown += " " + t("carry_more", count=len(documents) - LISTED_DOCUMENTS)
            lines.append(
                "  "
                + t(
                    "carry_documents",
                    reason=t(f"mapping_{name}"),
                    count=number(count),
                    documents=number(len(documents)),
                    listed=shown,
                )
            )
    return [*lines, t("carry_judge", judge=result.judge)]


def carry_status_lines(status) -> list[str]:
    """``qrels pool show`` of a carried pool: ``status`` is
    ``annotator.releases.carry.CarryStatus``."""
    lineage = status.lineage
    lines = [
        "",
        t(
            "carry_title",
            release=lineage["release"],
            corpus_version=lineage["corpus_version"]["name"],
            chunking=describe(lineage["chunking"]),
            min_overlap=lineage["min_overlap"],
        ),
    ]
    lines += [
        "  "
        + t(
            "carry_status_line",
            mapping=t(f"mapping_{row.mapping}"),
            judged=number(row.judged),
            candidates=number(row.candidates),
            re_judged=number(row.re_judged),
        )
        for row in status.classes
    ]
    return lines


def gold_lines(standings: list, floor: float) -> list[str]:
    """``qrels gold report``: ``standings`` are ``annotator.quality.gold.Standing``."""
    if not standings:
        return [t("gold_none_seen")]
    lines = [t("gold_report_head", floor=floor)]
    for s in standings:
        lines.append(
            "  "
            + t(
                "gold_report_line",
                annotator=s.annotator,
                seen=s.seen,
                exact=f"{s.exact:.2f}",
                within=f"{s.within_one:.2f}",
                ge1=f"{s.binary_ge1:.2f}",
                ge2=f"{s.binary_ge2:.2f}",
                kappa=s.kappa.text(),
            )
            + ("  " + t("gold_flagged") if s.flagged else "")
        )
    return lines


def judge_lines(report, calibration_text) -> list[str]:
    """``qrels judge report``: ``report`` is ``annotator.judge.judge_report.JudgeReport``;
    ``calibration_text`` is ``calibration_lines`` (the calibration, as ``qrels calibrate``
    prints it)."""
    r = report
    lines = [
        t(
            "judge_report_head", model=r.model, pool=r.pool, judge=r.judge,
            version=r.prompt_version, hash=r.prompt_hash[:12], rubric=r.rubric_version,
        ),
        "  " + t("judge_report_served", models=", ".join(r.served_models) or "-"),
        "  " + t(
            "judge_report_candidates", candidates=r.candidates, graded=r.graded,
            failed=r.failed, not_asked=r.not_asked, flagged=r.flagged,
        ),
        "  " + t(
            "judge_report_cost", requests=r.requests, tokens_in=number(r.tokens_in),
            tokens_out=number(r.tokens_out), request_seconds=f"{r.request_seconds:.1f}",
            seconds=f"{r.seconds:.1f}",
        ),
        "  " + t("judge_report_grades", grades=", ".join(f"{g}: {n}" for g, n in r.grades.items())),
    ]  # fmt: skip
    if len(r.served_models) > 1:
        lines.append("  " + t("judge_report_served_several"))
    for reason in sorted(set(r.failures) | set(r.failed_by_reason)):
        lines.append(
            "  " + t(
                "judge_report_failure", reason=t(f"judge_failure_{reason}"),
                attempts=r.failures.get(reason, 0), candidates=r.failed_by_reason.get(reason, 0),
            )
        )  # fmt: skip
    for run in r.runs:
        status = t(f"judge_status_{run['status']}")
        lines.append("  " + t("judge_report_run", **{**run, "status": status}))
        if run["error"]:
            lines.append("    " + t("judge_run_error", error=run["error"]))
    if r.calibration is None:
        lines.append(t("judge_report_no_calibration"))
    else:
        lines += calibration_text
    lines.append(t("judge_report_calibrate", judge=r.judge))
    lines.append(t("judge_report_review", count=len(r.review)))
    for row in r.review:
        what = row["failure"] and t(f"judge_failure_{row['failure']}")
        flags = ", ".join(t(f"judge_flag_{f.split(':')[1]}") for f in row["flags"])
        grade = "-" if row["grade"] is None else row["grade"]
        sure = "" if row["probability"] is None else f" p={row['probability']:.2f}"
        lines.append(
            f"  {t('judge_why_' + row['why'])}\t{row['query_id']}\t{row['chunk_id']}\t"
            f"{grade}{sure}\t{what or flags or row['reason']}"
        )
    if not r.probabilities and r.graded:
        lines.append("  " + t("judge_report_no_probabilities"))
    return lines
