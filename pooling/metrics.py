"""Retrieval metrics by name: ``recall@5``, ``hit@5``, ``p@5``, ``mrr@10``, ``ndcg@10``,
``map`` (any cutoff k; MRR, nDCG and MAP also without one, over the whole ranking), and
the ir_measures measure each name stands for. Parsing names needs nothing heavy; the
measures import ir_measures when asked for.

``relevant`` means graded at least a threshold (default 1), the same in every metric: nDCG
keeps the grade as its gain, 0 below the threshold.
"""

from __future__ import annotations

from dataclasses import dataclass

from pooling.grades import GRADES, RELEVANT
from pooling.i18n import LocalizedError, check_name

# Metric families: name -> whether a cutoff k is required.
FAMILIES = {"recall": True, "hit": True, "p": True, "mrr": False, "ndcg": False, "map": False}
DEFAULT_METRICS = "recall@5,recall@20,hit@5,mrr@10,ndcg@10"


def syntax() -> str:
    """How the metric names are written, for help texts: ``recall@k, ..., ndcg[@k], ...``
    (``[@k]`` where the cutoff may be left out)."""
    return ", ".join(
        f"{name}@k" if needs_k else f"{name}[@k]" for name, needs_k in FAMILIES.items()
    )


@dataclass(frozen=True)
class Metric:
    """A metric family (``recall``, ``hit``, ``p``, ``mrr``, ``ndcg``, ``map``) at cutoff
    ``k`` (None: the whole ranking)."""

    family: str
    k: int | None = None

    @property
    def name(self) -> str:
        return self.family if self.k is None else f"{self.family}@{self.k}"

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
            }
            measure = kinds[self.family](rel=threshold)
        return measure if self.k is None else measure @ self.k


def parse_metrics(text: str) -> list[Metric]:
    """``"recall@5,ndcg@10,mrr"`` as metrics, in order, each once. Raises
    ``LocalizedError`` on an unknown family, a cutoff that is not a whole number from 1,
    or a family that needs one without it."""
    metrics: list[Metric] = []
    for item in (part.strip().lower() for part in text.split(",")):
        if not item:
            continue
        family, _, cutoff = item.partition("@")
        check_name(family, FAMILIES, "what_metric")
        k = None
        if cutoff:
            if not cutoff.isdigit() or int(cutoff) < 1:
                raise LocalizedError("size_positive", what=item, value=cutoff)
            k = int(cutoff)
        elif FAMILIES[family]:
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
