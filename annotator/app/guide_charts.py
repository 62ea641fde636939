"""The chart of a guided pool over time (``annotator.labeling.guidance.guide_progress``),
apart from ``annotator.app.charts``, which holds the rest and is full."""

from __future__ import annotations

import altair as alt
import pandas as pd

from annotator.app.charts import title


def guide_progress(frame: pd.DataFrame) -> alt.VConcatChart:
    """Relevant chunks found per 100 judged candidates, and the model's kappa with people
    with its 95% band, as people judged more candidates."""
    base = alt.Chart(frame).encode(
        x=alt.X("judged:Q", title=title("judged")),
        tooltip=[
            alt.Tooltip("judged_at:T", title=title("judged_at")),
            alt.Tooltip("judged:Q", title=title("judged")),
            alt.Tooltip("relevant_per_100:Q", title=title("relevant_per_100"), format=".1f"),
            alt.Tooltip("model_kappa:Q", title=title("model_kappa"), format=".2f"),
        ],
    )
    found = base.mark_line(point=True).encode(
        y=alt.Y("relevant_per_100:Q", title=title("relevant_per_100"))
    )
    band = base.mark_area(opacity=0.25).encode(
        y=alt.Y("kappa_low:Q", title=title("model_kappa"), scale=alt.Scale(domain=[-1, 1])),
        y2="kappa_high:Q",
    )
    kappa = base.mark_line(point=True).encode(y="model_kappa:Q")
    return alt.vconcat(found.properties(height=160), (band + kappa).properties(height=160))
