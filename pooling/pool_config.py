"""What a pool's config (``storage.models.Pool.config``, plain JSON) says about how the pool
is worked: whether it is an active pool, and how it mixes in gold items. Read by the
labeling room (what to hand out next), the quality room (gold figures, progress) and the
app alike, so it lives below all of them. No database, no Streamlit."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


def is_active(config: Mapping) -> bool:
    """Whether a pool with this config is an active pool."""
    return config.get("strategy") == "active"


@dataclass(frozen=True)
class GoldSettings:
    """How a pool mixes in gold: about one item in ``rate``; an annotator is flagged below a
    quadratic kappa of ``floor`` against gold; annotators see their own figures once they
    have judged ``min_seen`` gold items, unless ``show`` is off. Which gold items are part
    of whose work is ``storage.gold_records.own_gold``; ``annotator.quality.gold`` adds them
    and scores annotators on them."""

    rate: int = 20
    floor: float = 0.4
    show: bool = True
    min_seen: int = 10

    @classmethod
    def of(cls, config: dict) -> GoldSettings | None:
        """A pool's settings; None while it has no gold items (nothing is mixed in)."""
        return cls(**config["gold"]) if "gold" in config else None
