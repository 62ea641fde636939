"""Charts handed to Streamlit without Altair's check against Vega-Lite's schema.

Streamlit converts an Altair chart with ``to_dict()``, which checks the whole specification
against Vega-Lite's JSON schema on every run of the page: about a quarter of a chart page's
time on the demo (docs/benchmarks.md, "Page times in a browser"). The app's charts are made
by its own code from frames of known columns, so the check finds nothing new at run time;
the tests check every chart a page draws (tests/annotator/app/test_chart_pages.py,
``figure``)."""

from __future__ import annotations

import functools
from typing import TypeVar

import altair as alt

Chart = TypeVar("Chart", bound=alt.TopLevelMixin)


def unchecked(chart: Chart) -> Chart:
    """``chart``, whose ``to_dict()`` (Streamlit's conversion) skips the schema check."""
    # Altair keeps a chart's attributes in its specification (``__setattr__``): the method
    # is set on the object itself, beside it.
    object.__setattr__(chart, "to_dict", functools.partial(chart.to_dict, validate=False))
    return chart
