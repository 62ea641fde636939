"""How gold items are mixed into an annotator's work (``annotator.quality.gold`` adds them
and scores annotators on them): a pool's gold settings, and whether the next item an
annotator is given should be a gold check. No Streamlit, no database."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GoldSettings:
    """How a pool mixes in gold: one item in ``rate``; an annotator is flagged below a
    quadratic kappa of ``floor`` against gold; annotators see their own figures once they
    have judged ``min_seen`` gold items, unless ``show`` is off."""

    rate: int = 20
    floor: float = 0.4
    show: bool = True
    min_seen: int = 10

    @classmethod
    def of(cls, config: dict) -> GoldSettings | None:
        """A pool's settings; None while it has no gold items (nothing is mixed in)."""
        return cls(**config["gold"]) if "gold" in config else None


def due(done: int, gold_seen: int, rate: int) -> bool:
    """Whether the next item (the ``done + 1``-th) should be a gold check: one in ``rate``."""
    return gold_seen < (done + 1) // rate
