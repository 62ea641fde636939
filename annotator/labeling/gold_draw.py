"""How gold items are mixed into an annotator's work (``annotator.quality.gold`` adds them
and scores annotators on them): a pool's gold settings. Which gold items are part of whose
work is ``storage.gold_records.own_gold``. No Streamlit, no database."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GoldSettings:
    """How a pool mixes in gold: about one item in ``rate``; an annotator is flagged below a
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
