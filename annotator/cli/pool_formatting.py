"""What the pool commands print (``qrels pool build``, ``top-up``, ``show``, ``status``), as
pure functions from results to lines of text in the user's language, beside
``annotator.cli.formatting``'s for the other commands."""

from __future__ import annotations

import statistics
from collections import Counter

from annotator.cli.formatting import number
from pooling.i18n import t


def pool_result_lines(result, overlap: int | None = None) -> list[str]:
    """A build (with ``overlap``) or a top-up of a pool."""
    counts = {k: number(v) for k, v in vars(result).items() if isinstance(v, int)}
    if overlap is None:
        key = "pool_topped_up" if result.changed else "pool_topup_unchanged"
        return [t(key, name=result.name, **counts)]
    return [t("pool_built", name=result.name, overlap=overlap, **counts)]


def pool_report_lines(report, per_query: bool) -> list[str]:
    """``qrels pool show``: ``report`` is ``storage.pool_records.PoolReport``."""
    config = report.config
    sizes = sorted(report.sizes.values())
    lines = [
        t(
            "pool_show_head",
            name=report.name,
            systems=config.get("systems_spec", ""),
            strategy=f"@pool_strategy_{config.get('strategy')}",
            size=config.get("size"),
            overlap=report.overlap,
        ),
        t(
            "pool_show_sizes",
            candidates=number(sum(sizes)),
            queries=number(len(sizes)),
            low=sizes[0] if sizes else 0,
            median=f"{statistics.median(sizes):g}" if sizes else 0,
            high=sizes[-1] if sizes else 0,
            empty=sum(1 for n in sizes if n == 0),
        ),
        "",
        t("pool_show_systems"),
    ]
    for system, found in report.found.items():
        unique = number(report.unique[system])
        lines.append(
            "  " + t("pool_show_system", system=system, found=number(found), unique=unique)
        )
    if len(report.found) > 1:
        names = list(report.found)
        width = max(len(n) for n in names)
        cells = [max(len(n), 6) for n in names]
        lines += ["", t("pool_show_shared")]
        lines.append(" " * (width + 2) + _aligned(names, cells))
        for a in names:
            row = ["-" if a == b else str(report.shared[a][b]) for b in names]
            lines.append(f"  {a:<{width}}" + _aligned(row, cells))
    if per_query:
        lines += ["", t("pool_show_per_query")]
        lines += [f"  {query_id}\t{size}" for query_id, size in report.sizes.items()]
    return lines


def _aligned(values: list[str], widths: list[int]) -> str:
    return "  ".join(f"{v:>{w}}" for v, w in zip(values, widths, strict=True))


def active_lines(settings: dict, status: list, per_query: bool) -> list[str]:
    """Where an active pool's queries stand against the stopping rule: ``status`` is a list
    of ``annotator.labeling.active_pooling.QueryStatus``."""
    stopped = Counter(s.state for s in status)
    lines = [
        "",
        t(
            "active_summary",
            budget=settings["budget"],
            below=f"{settings['stop_below']:g}",
            chosen=number(sum(s.chosen for s in status)),
            judged=number(sum(s.judged for s in status)),
            relevant=number(sum(s.relevant for s in status)),
            open=stopped["open"],
            budget_spent=stopped["budget"],
            estimate=stopped["estimate"],
            exhausted=stopped["exhausted"],
            sampled=sum(s.sampled for s in status),
            complete=stopped["complete"],
        ),
    ]
    if per_query:
        lines.append(t("active_per_query"))
        for s in status:
            estimate = "-" if s.estimate is None else f"{s.estimate:.1f}"
            lines.append(
                f"  {s.query_id}\t{s.chosen}/{s.target}\t{s.judged}\t{s.relevant}"
                f"\t{estimate}\t{t(f'active_{s.state}')}"
            )
    return lines


def guide_lines(summary) -> list[str]:
    """A guided pool's figures: ``summary`` is ``annotator.labeling.guidance.GuideSummary``."""
    kappa, interval = summary.agreement.kappa(), summary.agreement.interval()
    per_hundred = summary.relevant_per_hundred
    return [
        t(
            "guide_summary",
            model=summary.model,
            per_hundred="-" if per_hundred is None else f"{per_hundred:.1f}",
            kappa="-" if kappa is None else f"{kappa:.2f}",
            interval="" if interval is None else f" [{interval[0]:.2f}, {interval[1]:.2f}]",
            items=number(summary.agreement.total),
            left="-" if summary.remaining is None else f"{summary.remaining:.1f}",
        )
    ]
