"""The lead's charts (Altair, drawn by Streamlit as Vega-Lite), each with the table behind
it. Part of the app's shell: the frames come from the plain modules (``progress``,
``pool_figures``, ``agreement``, ``releases``), which tests call directly; this module only
draws them, and shows the very same frame as the table, so what a lead reads under the
toggle is what the chart shows.

Column names are the frames' own; their titles come from the translation table as
``col_<name>``. Values that are names of things (a grade's "unsure", a query's state, the
team) are translated by ``show`` before drawing (``shown``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Literal

import altair as alt
import pandas as pd
import streamlit as st

from annotator.app import ui
from annotator.app.unchecked import unchecked
from annotator.pools.pool_figures import JOINER
from annotator.quality.adjudication import STATUS_ORDER
from annotator.quality.progress import GRADE_LABELS, PERIODS, UNSURE
from pooling.i18n import MESSAGES

# Bars in time: the width of one hour or one day, read in UTC as the frames are.
TIME_UNITS = {"hour": "utcyearmonthdatehours", "day": "utcyearmonthdate"}
TIME_FORMATS = {"hour": "%b %d %H:00", "day": "%b %d"}
GRADE_COLORS = ["#d7dde8", "#9ecae1", "#4292c6", "#08519c", "#fdae6b"]  # 0-3, then unsure
DASHED = [6, 4]
COMPOSED = (alt.HConcatChart, alt.VConcatChart, alt.FacetChart)
# What a figure draws: one chart, or charts layered, side by side or faceted.
Drawn = (
    alt.Chart
    | alt.LayerChart
    | alt.HConcatChart
    | alt.VConcatChart
    | alt.ConcatChart
    | (alt.FacetChart | alt.RepeatChart)
)
WIDE = 560  # the width of a chart drawn beside or above another (Vega cannot stretch those)
ACROSS = 600  # the bars' width a chart of many keeps to, as far as its thinnest bars allow
SHARE = alt.Scale(domain=[0, 1])  # 0-100% always (with no extent an axis read "0.000000%")
LEGEND_PAIRS = 15  # pairs of annotators a chart names in a legend


def show(key: str, draw: Callable[[pd.DataFrame], Drawn], frame: pd.DataFrame, title: str) -> None:
    """The chart ``draw`` makes of ``frame``, titled ``title``, and behind a toggle below
    it the same frame as a table, both with names in the page's language (``shown``).
    Everything sits in a container with the key ``figure_<key>`` (the toggle's key is
    ``table_<key>``), so that a test can find the chart and its table. The title is drawn
    by Vega as plain text: it may hold names people chose."""
    frame = shown(frame)
    with st.container(key=f"figure_{key}"):
        chart = draw(frame).properties(title=alt.TitleParams(title, anchor="start"))
        # A chart that sets its own width (bars of a fixed step, charts side by side, one
        # above the other or in columns) keeps it; a single chart stretches across the page.
        fixed = isinstance(chart, COMPOSED) or getattr(chart, "width", alt.Undefined) is not (
            alt.Undefined
        )
        width: Literal["content", "stretch"] = "content" if fixed else "stretch"
        st.altair_chart(unchecked(chart), width=width, alt=title)
        if st.toggle(ui.t("show_table"), key=f"table_{key}"):
            st.dataframe(labelled(frame), hide_index=True)


def shown(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the names the plain modules use for things in the page's language:
    the team (a missing annotator), an unsure grade, an active query's state."""
    names = {
        "annotator": lambda a: ui.t("team_label") if pd.isna(a) else a,
        "grade": lambda g: ui.t("label_unsure") if g == UNSURE else g,
        "state": lambda s: ui.t(f"active_{s}"),
        "failure": lambda f: ui.t(f"judge_failure_{f}"),
        "status": lambda s: ui.t(f"candidate_status_{s}"),
        "measure": lambda m: ui.t(f"measure_{m}"),
        "group": lambda g: ui.t("group_all") if g == "all" else g,
    }
    return frame.assign(**{c: frame[c].map(f) for c, f in names.items() if c in frame})


def labelled(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its columns titled in the page's language (``col_<name>``)."""
    return frame.rename(columns={c: title(c) for c in frame.columns if f"col_{c}" in MESSAGES})


def title(column: str) -> str:
    return ui.t(f"col_{column}")


def _tips(*fields: str) -> list[alt.Tooltip]:
    """Tooltips for ``fields`` (``name:type``), titled in the page's language; times in
    UTC, shares as percentages."""
    tips = []
    for field in fields:
        name, kind = field.split(":")
        if kind == "T":  # read as UTC to the minute (a format of its own would not parse it)
            tips.append(alt.Tooltip(f"utcyearmonthdatehoursminutes({name}):T", title=title(name)))
        elif kind == "Q":
            number = ".1%" if name == "share" else ".3~f"
            tips.append(alt.Tooltip(field, title=title(name), format=number))
        else:
            tips.append(alt.Tooltip(field, title=title(name)))
    return tips


def _folded(chart: alt.Chart, columns: list[str]) -> alt.Chart:
    """``chart`` with ``columns`` folded into rows: ``column`` (the name), ``value``, and
    ``label`` (the column's title in the page's language)."""
    # JSON strings are Vega expression strings, whatever quotes a translation holds.
    cases = " : ".join(f"datum.column == {json.dumps(c)} ? {json.dumps(title(c))}" for c in columns)
    return chart.transform_fold(
        list[str | alt.FieldName](columns), as_=["column", "value"]
    ).transform_calculate(label=f"{cases} : ''")


def _time(per: str, times: pd.Series, column: str = "time") -> alt.X:
    """An x axis of hours or days, a label at each one ``times`` holds (``_ticks``)."""
    axis = _axis(times, TIME_FORMATS[per], angled=per == "hour")
    return alt.X(f"{TIME_UNITS[per]}({column}):T", title=title(column), axis=axis)


def _axis(times: pd.Series, form: str, angled: bool = True) -> alt.Axis:
    """A time axis labelled ``form`` (UTC) at ``times`` alone: Vega's own ticks fell between
    hours on an axis of one hour, each labelled "14:00"; an hour's label names its day."""
    return alt.Axis(values=_ticks(times, form), format=form, labelAngle=-45 if angled else 0)


def _ticks(times: pd.Series, form: str) -> list[alt.DateTime]:
    """The distinct ``times`` (UTC), one per label of ``form``: no two ticks say the same.
    (Vega-Lite takes a temporal axis's values as dates, not as numbers.)"""
    ticks: dict[str, alt.DateTime] = {}
    for moment in sorted(pd.to_datetime(times.dropna(), utc=True).unique()):
        ticks.setdefault(
            moment.strftime(form),
            alt.DateTime(
                year=moment.year,
                month=moment.month,
                date=moment.day,
                hours=moment.hour,
                minutes=moment.minute,
                utc=True,
            ),
        )
    return list(ticks.values())


def _grade_color(labels: list[str], field: str = "grade") -> alt.Color:
    return alt.Color(
        f"{field}:N",
        title=title("grade"),
        sort=labels,
        scale=alt.Scale(domain=labels, range=GRADE_COLORS[: len(labels)]),
    )


# -- team progress -------------------------------------------------------------------------


def timeline(frame: pd.DataFrame, per: str) -> alt.Chart:
    """Items judged per hour or day, stacked by annotator."""
    return (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=_time(per, frame["time"]),
            y=alt.Y("sum(judged):Q", title=title("judged")),
            color=alt.Color("annotator:N", title=title("annotator")),
            tooltip=_tips("annotator:N", "time:T", "judged:Q"),
        )
    )


def completion(frame: pd.DataFrame, candidates: int, per: str = "hour") -> alt.LayerChart:
    """Candidates complete per hour or day, each period's count climbing from its start to
    its end (one hour's work is a line, not a dot), the projection dashed, the pool's size a
    rule; the axis names the periods' bounds and the projection's times, to the minute."""
    done = frame[~frame["projected"].astype(bool)]
    step = pd.Timedelta(1, unit=PERIODS[per])
    times = pd.concat([done["time"], done["time"] + step, frame["time"]])
    x = alt.X(
        "at:T",
        title=title("time"),
        scale=alt.Scale(type="utc"),
        axis=_axis(times, "%b %d %H:%M"),
    )
    y = alt.Y("count:Q", title=title("complete"))
    # Each period: its start (complete before), its end (after); utcOffset moves by UTC units.
    unit = {"hour": "hours", "day": "date"}[per]
    climb = (
        alt.Chart(frame)
        .transform_filter("!datum.projected")
        .transform_calculate(
            start="toDate(datum.time)",
            end=f"utcOffset('{unit}', toDate(datum.time), 1)",
            before="datum.complete - datum.completed",
        )
        .transform_fold(["before", "complete"], as_=["edge", "count"])
        .transform_calculate(at="datum.edge == 'before' ? datum.start : datum.end")
        .mark_line(point=True)
        .encode(x=x, y=y, tooltip=_tips("time:T", "completed:Q", "complete:Q"))
    )
    ahead = (
        alt.Chart(frame)
        .transform_filter("datum.projected")
        .transform_calculate(at="toDate(datum.time)", count="datum.complete")
        .mark_line(strokeDash=DASHED, point=True, color="gray")
        .encode(x=x, y=y, tooltip=_tips("time:T", "complete:Q"))
    )
    size = alt.Chart(pd.DataFrame({"candidates": [candidates]})).mark_rule(strokeDash=[2, 2])
    return climb + ahead + size.encode(y=alt.Y("candidates:Q"))


def throughput(table: pd.DataFrame) -> alt.HConcatChart | alt.ConcatChart:
    """Per annotator: items per hour worked, and median seconds per judgment."""

    def bars(column: str) -> alt.Chart:
        return (
            alt.Chart(table)
            .mark_bar()
            .encode(
                x=alt.X(f"{column}:Q", title=title(column)),
                y=alt.Y("annotator:N", title=title("annotator")),
                tooltip=_tips("annotator:N", f"{column}:Q"),
            )
        )

    return bars("per_hour").properties(width=WIDE // 2) | bars("seconds").properties(
        width=WIDE // 2
    )


def distribution(frame: pd.DataFrame) -> alt.Chart:
    """Each annotator's grades (and the team's) as shares of one stacked bar."""
    labels = [ui.t("label_unsure") if g == UNSURE else g for g in GRADE_LABELS]
    return (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=alt.X("sum(count):Q", stack="normalize", title=title("share")),
            y=alt.Y("annotator:N", title=title("annotator"), sort=None),
            color=_grade_color(labels),
            order=alt.Order("order:Q"),
            tooltip=_tips("annotator:N", "grade:N", "count:Q", "share:Q"),
        )
        .transform_calculate(order=f"indexof({labels}, datum.grade)")
    )


def drift(frame: pd.DataFrame, per: str) -> alt.Chart:
    """Each annotator's mean grade per hour or day, the team's dashed."""
    team = ui.t("team_label")
    return (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=_time(per, frame["time"]),
            y=alt.Y("mean_grade:Q", title=title("mean_grade"), scale=alt.Scale(domain=[0, 3])),
            color=alt.Color("annotator:N", title=title("annotator")),
            strokeDash=alt.condition(
                alt.datum.annotator == team, alt.value(DASHED), alt.value([1, 0])
            ),
            tooltip=_tips("annotator:N", "time:T", "graded:Q", "mean_grade:Q"),
        )
    )


# -- agreement -----------------------------------------------------------------------------


def figure_bars(frame: pd.DataFrame, measure: str) -> alt.LayerChart | alt.FacetChart:
    """A figure per group as a bar, or per pair of annotators in a column for each group,
    with its bootstrap interval as a black line and ends; undefined figures are left out of
    the chart (the table says why)."""
    shown = frame.dropna(subset=["value"])
    pairs = shown["pair"].nunique()
    tips = _tips("group:N", "pair:N", "value:Q", "low:Q", "high:Q")
    if not pairs:
        x = alt.X("group:N", title=title("group"), axis=alt.Axis(labelAngle=0))
        return _interval_bars(alt.Chart(shown).encode(x=x, tooltip=tips), measure, 56)
    # A column per group and a bar per pair in it, not bars offset within a group: with
    # dozens of pairs Vega-Lite drew a layer's intervals and its bars at different offsets.
    # Pairs are named under their bars for a team of six or fewer; beyond, the tooltip
    # names them, and the table is a click away.
    named = pairs <= LEGEND_PAIRS
    x = alt.X("pair:N", title=None, axis=alt.Axis(labels=named, ticks=named, labelLimit=240))
    base = alt.Chart(shown).encode(x=x, color=alt.Color("pair:N", legend=None), tooltip=tips)
    # 56 px a bar while they fit across a page, thinner for many (twelve people: 66 pairs).
    step = min(56, max(4, ACROSS // (shown["group"].nunique() * pairs)))
    header = alt.Header(labelOrient="bottom", titleOrient="bottom")
    column = alt.Column("group:N", title=title("group"), header=header)
    return _interval_bars(base, measure, step).facet(column=column)


def _interval_bars(base: alt.Chart, measure: str, step: int) -> alt.LayerChart | alt.FacetChart:
    """``base``'s bars of ``value`` with the interval from ``low`` to ``high`` in black,
    whatever the bar's colour, ``step`` px a bar."""
    bars = base.mark_bar().encode(y=alt.Y("value:Q", title=measure))
    black = alt.value("black")
    interval = base.mark_rule(strokeWidth=2).encode(y="low:Q", y2="high:Q", color=black)
    ends = [
        base.mark_tick(thickness=2, size=min(12, step)).encode(y=f"{end}:Q", color=black)
        for end in ("low", "high")
    ]
    return alt.layer(bars, interval, *ends).properties(width=alt.Step(step))


def confusion(cells: pd.DataFrame, rows: str = "first", columns: str = "second") -> alt.LayerChart:
    """A confusion matrix (``rows``, ``columns``, ``count``) as a heatmap with counts."""
    heat = (
        alt.Chart(cells)
        .mark_rect()
        .encode(
            x=alt.X(f"{columns}:O", title=title(columns), axis=alt.Axis(labelAngle=0)),
            y=alt.Y(f"{rows}:O", title=title(rows)),
            color=alt.Color("count:Q", title=title("count")),
        )
    )
    # White numbers on the dark cells (over half the largest count), black on the light.
    counts = (
        alt.Chart(cells)
        .transform_joinaggregate(most="max(count)")
        .mark_text()
        .encode(
            x=f"{columns}:O",
            y=f"{rows}:O",
            text="count:Q",
            color=alt.condition(
                "datum.count > datum.most / 2", alt.value("white"), alt.value("black")
            ),
        )
    )
    return (heat + counts).properties(height=alt.Step(32))  # a row of 32 px per grade


def gold_standings(frame: pd.DataFrame, floor: float) -> alt.LayerChart | alt.FacetChart:
    """Each annotator's kappa against gold (``gold.standings_frame``) as a bar, flagged
    ones in orange, with its bootstrap interval, and the lead's floor as a dashed rule."""
    shown = frame.dropna(subset=["kappa"])
    base = alt.Chart(shown).encode(
        x=alt.X("annotator:N", title=title("annotator"), axis=alt.Axis(labelAngle=0)),
        tooltip=_tips("annotator:N", "seen:Q", "kappa:Q", "low:Q", "high:Q", "exact:Q"),
    )
    bars = base.mark_bar().encode(
        y=alt.Y("kappa:Q", title=title("kappa"), scale=alt.Scale(domain=[-1, 1])),
        color=alt.Color(
            "flagged:N",
            title=title("flagged"),
            scale=alt.Scale(domain=[False, True], range=["#4292c6", "#fd8d3c"]),
        ),
    )
    black = alt.value("black")
    interval = base.mark_rule(strokeWidth=2).encode(y="low:Q", y2="high:Q", color=black)
    rule = (
        alt.Chart(pd.DataFrame({"floor": [floor]}))
        .mark_rule(strokeDash=DASHED, color="#e6550d")
        .encode(y="floor:Q")
    )
    return alt.layer(bars, interval, rule).properties(width=alt.Step(56))


# -- pools ---------------------------------------------------------------------------------


def statuses(frame: pd.DataFrame) -> alt.Chart:
    """Per query, its judged candidates stacked by status, those needing a lead first."""
    order = [ui.t(f"candidate_status_{s}") for s in STATUS_ORDER]
    colors = ["#e6550d", "#fdae6b", "#31a354", "#ffd92f", "#9ecae1", "#d9d9d9"]
    return (
        alt.Chart(frame)
        .mark_bar()
        .encode(
            x=alt.X("query:N", title=title("query")),
            y=alt.Y("candidates:Q", title=title("candidates"), stack="zero"),
            color=alt.Color(
                "status:N",
                title=title("status"),
                sort=order,
                scale=alt.Scale(domain=order, range=colors),
            ),
            order=alt.Order("rank:Q"),
            tooltip=_tips("query:N", "status:N", "candidates:Q"),
        )
        .transform_calculate(rank=f"indexof({json.dumps(order)}, datum.status)")
    )


def systems(frame: pd.DataFrame) -> alt.VConcatChart:
    """Per system: candidates found, found by it alone, and its share of the relevant."""
    y = alt.Y("system:N", title=title("system"))
    counts = (
        _folded(alt.Chart(frame), ["found", "unique"])
        .mark_bar()
        .encode(
            x=alt.X("value:Q", title=title("candidates")),
            y=y,
            yOffset="label:N",
            color=alt.Color("label:N", title=None, legend=alt.Legend(orient="top")),
            tooltip=_tips("system:N", "found:Q", "unique:Q"),
        )
    )
    share = (
        alt.Chart(frame)
        .mark_bar(color="#31a354")
        .encode(
            x=alt.X("share:Q", title=title("share"), axis=alt.Axis(format=".0%"), scale=SHARE),
            y=y,
            tooltip=_tips("system:N", "judged:Q", "relevant:Q", "share:Q"),
        )
    )
    return alt.vconcat(counts.properties(width=WIDE), share.properties(width=WIDE))


def upset(frame: pd.DataFrame) -> alt.VConcatChart:
    """UpSet-style: a bar per combination of systems that found the same candidates (most
    first, with its count), and under it a dot for each system in the combination."""
    x = alt.X(
        "systems:N", sort=alt.EncodingSortField(field="candidates", order="descending"), axis=None
    )
    width = alt.Step(56)
    bars = alt.Chart(frame).encode(
        x=x,
        y=alt.Y("candidates:Q", title=title("candidates")),
        tooltip=_tips("systems:N", "candidates:Q"),
    )
    counted = bars.mark_bar() + bars.mark_text(dy=-6).encode(text="candidates:Q")
    members = alt.Chart(frame).transform_calculate(system=f"split(datum.systems, '{JOINER}')")
    members = members.transform_flatten(["system"]).encode(
        x=x, y=alt.Y("system:N", title=title("system")), tooltip=_tips("systems:N")
    )
    dots = members.mark_line(color="black").encode(detail="systems:N") + members.mark_circle(
        size=120, opacity=1, color="black"
    )
    return alt.vconcat(counted.properties(width=width), dots.properties(width=width), spacing=4)


def active(frame: pd.DataFrame) -> alt.Chart:
    """Per query of an active pool: judged, relevant found, and relevant estimated left."""
    kinds = ["judged", "relevant", "estimate"]
    return (
        _folded(alt.Chart(frame), kinds)
        .mark_bar()
        .encode(
            x=alt.X("query:N", title=title("query")),
            xOffset="label:N",
            y=alt.Y("value:Q", title=None),
            color=alt.Color("label:N", title=None, sort=[title(k) for k in kinds]),
            tooltip=_tips("query:N", "chosen:N", "judged:Q", "relevant:Q", "estimate:Q", "state:N"),
        )
    )


# -- the model judge -----------------------------------------------------------------------


def judge_failures(frame: pd.DataFrame) -> alt.Chart:
    """Per reason of failure (``judge_report.failures_frame``): the attempts that failed so,
    and the candidates left without a grade so, side by side."""
    kinds = ["attempts", "candidates"]
    return (
        _folded(alt.Chart(frame), kinds)
        .mark_bar()
        .encode(
            y=alt.Y("failure:N", title=title("failure"), sort=None),
            yOffset="label:N",
            x=alt.X("value:Q", title=None),
            color=alt.Color("label:N", title=None, sort=[title(k) for k in kinds]),
            tooltip=_tips("failure:N", "attempts:Q", "candidates:Q"),
        )
    )


# -- releases ------------------------------------------------------------------------------


def release_history(frame: pd.DataFrame, grades: list[str]) -> alt.VConcatChart:
    """Per release, oldest first: its judged candidates by grade, and its alpha."""
    x = alt.X("version:N", sort=None, title=title("version"), axis=alt.Axis(labelAngle=0))
    step = alt.Step(72)
    counts = (
        _folded(alt.Chart(frame), grades)
        .mark_bar()
        .encode(
            x=x,
            y=alt.Y("value:Q", title=title("graded")),
            color=_grade_color([title(g) for g in grades], field="label"),
            order=alt.Order("column:N"),
            tooltip=_tips("version:N", "created:T", "value:Q"),
        )
    )
    alpha = (
        alt.Chart(frame)
        .mark_line(point=True)
        .encode(
            x=x, y=alt.Y("alpha:Q", title=title("alpha")), tooltip=_tips("version:N", "alpha:Q")
        )
    )
    return alt.vconcat(counts.properties(width=step), alpha.properties(width=step, height=120))
