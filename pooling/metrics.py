"""Retrieval metrics by name: ``recall@5``, ``hit@5``, ``p@5``, ``mrr@10``, ``ndcg@10``,
``map`` (any cutoff k; MRR, nDCG and MAP also without one, over the whole ranking), ``bpref``
and ``infap`` (over the whole ranking only, as trec_eval has them: metrics made for
incomplete judgments), and the ir_measures measure each name stands for. Parsing names
needs nothing heavy; the measures import ir_measures when asked for.

``relevant`` means graded at least a threshold (default 1), the same in every metric: nDCG
keeps the grade as its gain, 0 below the threshold. ``infap`` reads trec_eval's convention
for sampled judgments: a pooled candidate left unjudged has grade -1 in its qrels
(``Metric.reads_pool_marks``).
"""

from __future__ import annotations

from dataclasses import dataclass

from pooling.grades import GRADES, RELEVANT
from pooling.i18n import LocalizedError, check_name

__all__ = [
    "DEFAULT_METRICS",
    "FAMILIES",
    "POOLED_UNJUDGED",
    "Metric",
    "parse_metrics",
    "syntax",
    "with_context",
]


# Metric families: name -> their cutoff k: "required", "optional" or "none" (whole ranking).
FAMILIES = {
    "recall": "required",
    "hit": "required",
    "p": "required",
    "mrr": "optional",
    "ndcg": "optional",
    "map": "optional",
    "bpref": "none",
    "infap": "none",
}
# trec_eval's mark of a pooled candidate that was not judged (a sampled pool), for infAP.
POOLED_UNJUDGED = -1
DEFAULT_METRICS = "recall@5,recall@20,hit@5,mrr@10,ndcg@10"
# The largest cutoff: deeper than any run is ranked (trec_eval's measures take a C integer,
# and a cutoff past 2^63 came back as the name of a measure nobody asked for).
MAX_CUTOFF = 100_000


def syntax() -> str:
    """How the metric names are written, for help texts: ``recall@k, ..., ndcg[@k], ...,
    bpref`` (``[@k]`` where the cutoff may be left out, nothing where it takes none)."""
    written = {"required": "{}@k", "optional": "{}[@k]", "none": "{}"}
    return ", ".join(written[cutoff].format(name) for name, cutoff in FAMILIES.items())


@dataclass(frozen=True)
class Metric:
    """A metric family (``recall``, ``hit``, ``p``, ``mrr``, ``ndcg``, ``map``) at cutoff
    ``k`` (None: the whole ranking)."""

    family: str
    k: int | None = None

    @property
    def name(self) -> str:
        return self.family if self.k is None else f"{self.family}@{self.k}"

    @property
    def reads_pool_marks(self) -> bool:
        """Whether the metric is scored with the pooled-but-unjudged candidates marked
        ``POOLED_UNJUDGED`` in its qrels (infAP); every other metric reads them as
        unjudged, which it would anyway."""
        return self.family == "infap"

    def beyond(self, context_k: int | None) -> bool:
        """Whether the metric reads deeper than the generator's context budget
        ``context_k``: a cutoff above it, or none at all (the whole ranking)."""
        return context_k is not None and (self.k is None or self.k > context_k)

    def measure(self, threshold: int = RELEVANT):
        """The ir_measures measure: relevant means grade >= ``threshold``; nDCG's gain is
        the grade, and 0 below the threshold."""
        import ir_measures

        if self.family == "ndcg":
            gains = {g: (g if g >= threshold else 0) for g in GRADES}
            measure = ir_measures.nDCG if threshold <= 1 else ir_measures.nDCG(gains=gains)
        else:
            kinds = {
                "recall": ir_measures.R,
                "hit": ir_measures.Success,
                "p": ir_measures.P,
                "mrr": ir_measures.RR,
                "map": ir_measures.AP,
                "bpref": ir_measures.Bpref,
                "infap": ir_measures.infAP,
            }
            measure = kinds[self.family](rel=threshold)
        return measure if self.k is None else measure @ self.k


def parse_metrics(text: str) -> list[Metric]:
    """``"recall@5,ndcg@10,mrr"`` as metrics, in order, each once. Raises
    ``LocalizedError`` on an unknown family, a cutoff that is not a whole number from 1
    to ``MAX_CUTOFF``, a family that needs one without it, or one that takes none with it."""
    metrics: list[Metric] = []
    for item in (part.strip().lower() for part in text.split(",")):
        if not item:
            continue
        family, _, cutoff = item.partition("@")
        check_name(family, FAMILIES, "what_metric")
        k = None
        if cutoff and FAMILIES[family] == "none":
            raise LocalizedError("metric_takes_no_k", metric=family)
        if cutoff:
            # ASCII digits only: "²" is a digit to isdigit() and not a number to int()
            if not (cutoff.isascii() and cutoff.isdigit()) or int(cutoff) < 1:
                raise LocalizedError("size_positive", what=item, value=cutoff)
            k = int(cutoff)
            if k > MAX_CUTOFF:
                raise LocalizedError("metric_cutoff_too_large", metric=item, limit=MAX_CUTOFF)
        elif FAMILIES[family] == "required":
            raise LocalizedError("metric_needs_k", metric=family)
        if Metric(family, k) not in metrics:
            metrics.append(Metric(family, k))
    if not metrics:
        raise LocalizedError("metrics_none")
    return metrics


def with_context(metrics: list[Metric], context_k: int | None) -> list[Metric]:
    """``metrics`` led by Recall and Hit at the generator's context budget ``context_k``
    (what reaches the generator is what counts), each metric once."""
    if context_k is None:
        return list(metrics)
    first = [Metric("recall", context_k), Metric("hit", context_k)]
    return first + [m for m in metrics if m not in first]
