"""Plotly figures built from engine results; pure functions, testable without a browser."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from coarsenrank_core.registry import DEFAULT_METHOD

from .text import alpha_number
from .theme import CHART_HEIGHT, FONT_SIZE, METHOD_NAMES, method_color, plot_text

__all__ = ["length_histogram", "ranker_histogram", "coverage_chart", "dic_chart",
           "accuracy_chart", "timing_chart", "agreement_heatmap", "robustness_chart",
           "scale_chart", "rank_heatmap", "rater_chart", "consensus_chart", "careless_chart",
           "cv_chart", "before_after_chart", "highlight_moved", "wrap", "method_name"]


TITLE_WIDTH = 34  # characters per title line: fits a 390 px phone screen
AXIS_TITLE_WIDTH = 40  # axis titles are set smaller
LABEL_WIDTH = 26  # characters per line of a method's name beside a chart's axis
SUBTITLE_LINE = 26  # pixels a line of a subplot's title takes above its panel


def wrap(text: str, width: int = TITLE_WIDTH) -> str:
    """Break a chart title into lines of at most ``width`` characters (plotly's ``<br>``)."""
    lines, line = [], ""
    for word in text.split(" "):
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return "<br>".join(lines)


def _layout(fig: go.Figure, title: str, height: int = CHART_HEIGHT, headroom: int = 0,
            **kwargs) -> go.Figure:
    """Title wrapped for a phone, above the plot and clear of the toolbar; shared fonts.

    ``headroom`` (pixels) lifts the title further, above what sits on top of the plot (a
    subplot's title). Markers are drawn whole where they sit on the end of an axis.
    """
    text = wrap(title)
    lines = text.count("<br>") + 1
    top = 30 + 26 * lines + headroom
    fig.update_traces(cliponaxis=False, selector=dict(type="scatter"))
    fig.update_layout(title=dict(text=text, x=0.0, xanchor="left", xref="container", y=1.0,
                                 yref="paper", yanchor="bottom",
                                 # plotly anchors a title of several lines by its first
                                 # line: lift it by the height of the others
                                 pad=dict(b=14 + 24 * (lines - 1) + headroom, l=4),
                                 font=dict(size=FONT_SIZE + 1)),
                      font=dict(size=FONT_SIZE - 2), height=height + 26 * (lines - 1),
                      margin=dict(l=10, r=10, t=top, b=10),
                      modebar=dict(orientation="v"), **kwargs)
    # long axis titles wrap too, and the margins grow to hold them
    fig.for_each_xaxis(lambda axis: axis.update(automargin=True, title_text=wrap(
        axis.title.text, AXIS_TITLE_WIDTH) if axis.title.text else None))
    fig.for_each_yaxis(lambda axis: axis.update(automargin=True, title_text=wrap(
        axis.title.text, AXIS_TITLE_WIDTH) if axis.title.text else None))
    return fig


def method_name(method: str) -> str:
    """A method's display name."""
    return METHOD_NAMES.get(method, method)


def _shown(total: int, limit: int | None) -> tuple[int, str]:
    """How many of ``total`` to draw, and the title's "showing K of N" note."""
    k = total if limit is None else min(total, limit)
    return k, ("" if k == total else f" (showing {k} of {total})")


def method_label(name: str) -> str:
    """A method's name as a category beside an axis: escaped for plotly and wrapped at
    :data:`LABEL_WIDTH` characters, so a long name cannot push the plot off a phone."""
    return wrap(plot_text(name), LABEL_WIDTH)


def _names(methods: Sequence[str]) -> list[str]:
    return [METHOD_NAMES.get(m, m) for m in methods]


# ---------------------------------------------------------------- data summary
def length_histogram(summary) -> go.Figure:
    """Bar chart: how many preferences have each length."""
    lengths = sorted(summary.length_counts)
    fig = go.Figure(go.Bar(x=[str(k) for k in lengths],
                           y=[summary.length_counts[k] for k in lengths],
                           marker_color="#1f5fa8", hovertemplate="%{y} lists of %{x} items"))
    _whole_counts(fig, max(summary.length_counts.values(), default=0))
    return _layout(fig, "How long are the lists?", xaxis_title="items in a list",
                   yaxis_title="number of lists")


def _whole_counts(fig: go.Figure, top: int) -> None:
    """A count axis labelled with whole numbers only (no 0.5 lists)."""
    fig.update_yaxes(rangemode="tozero", tickformat=",d",
                     dtick=1 if top <= 6 else None)


def ranker_histogram(summary) -> go.Figure:
    """Histogram: how many preferences each rater gave."""
    counts = np.asarray(summary.preferences_per_ranker)
    values, raters = np.unique(counts[counts > 0], return_counts=True)
    fig = go.Figure(go.Bar(x=[str(int(v)) for v in values], y=raters, marker_color="#E69F00",
                           hovertemplate="%{y} raters gave %{x} lists<extra></extra>"))
    fig.update_xaxes(type="category")
    _whole_counts(fig, int(raters.max(initial=0)))
    return _layout(fig, "How much did each rater answer?", xaxis_title="lists per rater",
                   yaxis_title="number of raters", bargap=0.05)


def coverage_chart(summary, item_names: Sequence[str], max_items: int = 40) -> go.Figure:
    """Horizontal bars: in how many lists each item appears (least-covered items first)."""
    appearances = np.asarray(summary.appearances)
    order = np.argsort(appearances, kind="stable")[:max_items]
    fig = go.Figure(go.Bar(y=[plot_text(item_names[i]) for i in order],
                           x=appearances[order], orientation="h", marker_color="#009E73",
                           hovertemplate="%{y}: in %{x} lists<extra></extra>"))
    shown = ("" if appearances.size <= max_items
             else f" (the {max_items} least covered of {appearances.size})")
    return _layout(fig, f"How often was each item ranked?{shown}",
                   height=max(CHART_HEIGHT, 22 * len(order) + 120),
                   xaxis_title="lists containing the item", yaxis=dict(autorange="reversed"))


# ---------------------------------------------------------------- DIC
_CURVE_LABELS = {"dic": "DIC = g − f (lower is better)",
                 "f": "f: fit, mean log-likelihood (higher is better)",
                 "g": "g: complexity"}


def dic_chart(result, curves: Sequence[str] = ("dic",), chosen_alpha: float | None = None
              ) -> go.Figure:
    """DIC (and optionally f and g) against α, every panel on the same log-α axis.

    Each panel marks the knee (where the smoothed DIC curve levels off, possibly between
    grid points) at the same α, the lowest DIC when it is inside the grid, and the session's
    α as a dashed vertical line drawn as a trace (so it sits at the same α in every panel).
    At the grid's end the chart says the curve is still falling instead of starring it.
    """
    curves = [c for c in ("dic", "f", "g") if c in curves] or ["dic"]
    fig = make_subplots(rows=len(curves), cols=1, shared_xaxes=True, vertical_spacing=0.12,
                        subplot_titles=[wrap(_CURVE_LABELS[c], 44) for c in curves])
    alphas, taus = np.asarray(result.alphas), np.asarray(result.taus)
    knee = float(result.knee_alpha)
    falling = bool(result.still_falling)
    for row, curve in enumerate(curves, start=1):
        values = np.asarray(getattr(result, curve))
        fig.add_trace(go.Scatter(
            x=alphas, y=values, mode="lines+markers", name=curve.upper() if curve == "dic"
            else curve, line=dict(color="#1f5fa8" if curve == "dic" else "#555555", width=3),
            customdata=taus, hovertemplate="α = %{x:.3g} (τ = %{customdata:.3g})<br>"
            + curve + " = %{y:.5g}<extra></extra>"), row=row, col=1)
        knee_y = float(np.interp(np.log(knee), np.log(alphas), values))
        marks = [(knee, knee_y, "levels off (default rule)", "#009E73", "diamond")]
        if not falling:
            best = result.best_index
            marks.append((alphas[best], values[best], "lowest DIC", "#D55E00", "star"))
        for x, y, label, color, symbol in marks:
            fig.add_trace(go.Scatter(
                x=[x], y=[y], mode="markers", name=label, showlegend=row == 1,
                legendgroup=label,
                marker=dict(size=16, color=color, symbol=symbol, line=dict(width=1)),
                hovertemplate=f"{label}: α = %{{x:.3g}}<extra></extra>"), row=row, col=1)
        if chosen_alpha is not None and np.isfinite(chosen_alpha):
            fig.add_trace(go.Scatter(
                x=[chosen_alpha, chosen_alpha], y=[float(values.min()), float(values.max())],
                mode="lines", name="α the pages use", showlegend=row == 1,
                legendgroup="chosen", line=dict(color="#7f3c8d", dash="dash", width=2),
                hovertemplate="α the pages use: %{x:.3g}<extra></extra>"), row=row, col=1)
    if falling:
        # below and left of the last point: a falling curve comes from above on the left
        fig.add_annotation(text="still falling at<br>the largest α tried", x=np.log10(alphas[-1]),
                           y=float(result.dic[-1]), xanchor="right", yanchor="top", yshift=-12,
                           showarrow=False, font=dict(color="#D55E00"), row=1, col=1)
    fig.update_xaxes(type="log", dtick=1, exponentformat="none", separatethousands=True)
    fig.update_xaxes(title_text="α: larger α = smaller neighbourhood = trusting the data more",
                     row=len(curves), col=1)
    # the first panel's title sits on top of the plot: the chart's title goes above it
    first_title_lines = wrap(_CURVE_LABELS[curves[0]], 44).count("<br>") + 1
    return _layout(fig, "Choosing α: where does the DIC curve level off?",
                   height=CHART_HEIGHT + 240 * (len(curves) - 1),
                   headroom=SUBTITLE_LINE * first_title_lines,
                   legend=dict(orientation="h", y=-0.25))


def cv_chart(evidence) -> go.Figure:
    """Held-out log-likelihood (summed over folds) against α; α = ∞ drawn at the right end."""
    alphas = np.asarray(evidence.alphas, dtype=float)
    finite = alphas[np.isfinite(alphas)]
    right = float(finite.max()) * 10 if finite.size else 1.0
    x = np.where(np.isfinite(alphas), alphas, right)
    labels = [alpha_number(a) for a in alphas]
    score = np.asarray(evidence.mean)
    best = int(np.flatnonzero(score >= score.max() - 1e-9 * abs(score.max()))[-1])
    fig = go.Figure(go.Scatter(
        x=x, y=score, mode="lines+markers", name="held-out log-likelihood",
        line=dict(color="#1f5fa8", width=3), customdata=labels,
        hovertemplate="α = %{customdata}: %{y:.5g}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[x[best]], y=[score[best]], mode="markers",
                             name="best (ties to the larger α)",
                             marker=dict(size=18, color="#D55E00", symbol="star")))
    fig.update_xaxes(type="log", tickvals=list(x), ticktext=labels,
                     title_text="α: larger α = smaller neighbourhood = trusting the data more")
    fig.update_yaxes(title_text="held-out log-likelihood (higher is better)")
    return _layout(fig, f"Cross-validation over {evidence.folds} folds "
                   f"(held out by {evidence.split})", legend=dict(orientation="h", y=-0.25))


# ---------------------------------------------------------------- comparison
CHANCE = 0.5  # pairwise accuracy of a random order


def _accuracy_range(values) -> list[float]:
    """From 0.5 (guessing) to 1, extended down only when a method does worse than guessing."""
    low = min([CHANCE, *[float(v) for v in values if np.isfinite(v)]])
    return [CHANCE if low >= CHANCE else low - 0.02, 1.0]


def accuracy_chart(comparison) -> go.Figure:
    """Pairwise accuracy of every method against the true order: dots on a 0.5–1 axis.

    Kendall's τ-b is in the table beside it (one panel, so nothing overlaps on a phone).
    """
    rows = [r for r in comparison.rows if r.ok]
    names = [method_label(r.name) for r in rows]
    fig = go.Figure(go.Scatter(
        x=[r.accuracy for r in rows], y=names, mode="markers+text",
        marker=dict(size=16, color=[method_color(r.method) for r in rows]),
        text=[f"{r.accuracy:.3f}" for r in rows], textposition="middle left",
        name="pairwise accuracy", customdata=[r.kendall_tau for r in rows],
        hovertemplate="%{y}: %{x:.3f} of item pairs right (Kendall τ-b %{customdata:.3f})"
                      "<extra></extra>"))
    fig.update_xaxes(range=_accuracy_range([r.accuracy for r in rows]),
                     title_text="pairwise accuracy (0.5 = guessing, 1 = the true order)")
    fig.update_yaxes(autorange="reversed")
    return _layout(fig, "How close is each method to the true order?",
                   height=max(300, 44 * len(rows) + 160), showlegend=False)


def before_after_chart(before, after) -> go.Figure:
    """Each method's pairwise accuracy on the original data and on the noisy copy."""
    pairs = [(b, a) for b, a in zip(before.rows, after.rows) if b.ok and a.ok]
    names = [method_label(b.name) for b, _ in pairs]
    fig = go.Figure()
    for (b, a), name in zip(pairs, names):
        fig.add_trace(go.Scatter(x=[b.accuracy, a.accuracy], y=[name] * 2,
                                 mode="lines", line=dict(color="#bbbbbb", width=3),
                                 showlegend=False, hoverinfo="skip"))
    fig.add_trace(go.Scatter(x=[b.accuracy for b, _ in pairs], y=names, mode="markers",
                             name="original data", marker=dict(size=15, color="#0072B2"),
                             hovertemplate="%{y}, original: %{x:.3f}<extra></extra>"))
    fig.add_trace(go.Scatter(x=[a.accuracy for _, a in pairs], y=names, mode="markers",
                             name="noisy copy",
                             marker=dict(size=15, color="#D55E00", symbol="diamond"),
                             hovertemplate="%{y}, noisy copy: %{x:.3f}<extra></extra>"))
    values = [v for b, a in pairs for v in (b.accuracy, a.accuracy)]
    fig.update_xaxes(range=_accuracy_range(values),
                     title_text="pairwise accuracy (0.5 = guessing)")
    fig.update_yaxes(autorange="reversed")
    return _layout(fig, "Each method before and after the noise",
                   height=max(300, 44 * len(pairs) + 180),
                   legend=dict(orientation="h", y=-0.3))


def timing_chart(timings) -> go.Figure:
    """Seconds per fit: median of N runs as a dot, fastest to slowest run as a bar, log axis."""
    fig = go.Figure(go.Scatter(
        x=timings.median, y=[method_label(n) for n in timings.names], mode="markers",
        marker=dict(size=14, color=[method_color(m) for m in timings.methods]),
        error_x=dict(type="data", symmetric=False, visible=True,
                     array=np.asarray(timings.slowest) - np.asarray(timings.median),
                     arrayminus=np.asarray(timings.median) - np.asarray(timings.fastest)),
        hovertemplate="%{y}: %{x:.3g} s<extra></extra>"))
    fig.update_xaxes(type="log",
                     title_text=f"seconds per fit, median of {timings.runs} runs (log scale)")
    fig.update_yaxes(autorange="reversed")
    return _layout(fig, "How long does each method take?",
                   height=max(300, 44 * len(timings.methods) + 160), showlegend=False)


#: Size of the numbers in the agreement heatmap's cells on a phone, and the characters
#: per line of its row names (so that ten columns of "100" fit beside them in 390 px)
PHONE_CELL_FONT = 13
PHONE_LABEL_WIDTH = 12


def agreement_heatmap(comparison, phone: bool = False) -> go.Figure:
    """Share of item pairs that each two methods order alike.

    With ``phone=True`` (a 390 px screen) ten methods still fit with every one named and
    every number readable: the columns are numbered as the rows (``1``, ``2``, … beside
    ``1 Default``, row names wrapped at :data:`PHONE_LABEL_WIDTH` characters), the cells
    hold whole percentages in :data:`PHONE_CELL_FONT` pixel type, and the colour bar is
    left out.
    """
    names = [method_label(r.name) for r in comparison.rows]
    values = np.asarray(comparison.agreement)
    hover = "%{y} vs %{x}: %{z:.3f}<extra></extra>"
    if not phone:
        fig = go.Figure(go.Heatmap(
            z=values, x=names, y=names, zmin=0.5, zmax=1.0, colorscale="Blues",
            text=np.where(np.isnan(values), "", np.round(values, 3).astype(str)),
            texttemplate="%{text}", hovertemplate=hover))
        return _layout(fig, "Do the methods agree? (share of item pairs ordered alike)",
                       yaxis=dict(autorange="reversed"))
    numbers = [str(i + 1) for i in range(len(names))]
    rows = [wrap(f"{n} {plot_text(r.name)}", PHONE_LABEL_WIDTH)
            for n, r in zip(numbers, comparison.rows)]
    percent = np.where(np.isnan(values), "", np.char.mod("%d", np.nan_to_num(
        np.round(100 * values)).astype(int)))
    fig = go.Figure(go.Heatmap(
        z=values, x=numbers, y=rows, zmin=0.5, zmax=1.0, colorscale="Blues",
        showscale=False, text=percent, texttemplate="%{text}",
        textfont=dict(size=PHONE_CELL_FONT), xgap=1, ygap=1, hovertemplate=hover))
    return _layout(fig, "Do the methods agree? (% of item pairs ordered alike; columns "
                   "numbered as the rows)", height=max(CHART_HEIGHT, 60 + 48 * len(rows)),
                   xaxis=dict(tickmode="array", tickvals=numbers, ticktext=numbers,
                              tickangle=0),
                   yaxis=dict(autorange="reversed", tickmode="array", tickvals=rows,
                              ticktext=rows, tickfont=dict(size=PHONE_CELL_FONT)))


ROBUSTNESS_SHOWN = 4  # methods drawn at once by default (more bands overlap)
#: Drawn first when present: the default answer and the paper's method, then plain PL-EM.
ROBUSTNESS_FIRST = (DEFAULT_METHOD, "coarsen-pl", "pl-em")


def first_shown(methods: Sequence[str]) -> list[str]:
    """The methods a robustness chart shows at first: :data:`ROBUSTNESS_FIRST` where run,
    then the others in their order, :data:`ROBUSTNESS_SHOWN` at most."""
    preferred = [m for m in ROBUSTNESS_FIRST if m in methods]
    return (preferred + [m for m in methods if m not in preferred])[:ROBUSTNESS_SHOWN]


def robustness_chart(result, shown: Sequence[str] | None = None) -> go.Figure:
    """Accuracy against noise level for the ``shown`` methods, ±1 standard deviation band."""
    fig = go.Figure()
    levels = 100 * np.asarray(result.levels)
    shown = first_shown(result.methods) if shown is None else list(shown)
    values = []
    for i, method in enumerate(result.methods):
        if method not in shown:
            continue
        mean, std = np.asarray(result.mean[i]), np.asarray(result.std[i])
        values += list(mean - std)
        color = method_color(method)
        fig.add_trace(go.Scatter(
            x=np.concatenate([levels, levels[::-1]]),
            y=np.concatenate([mean + std, (mean - std)[::-1]]), fill="toself",
            fillcolor=color, opacity=0.12, line=dict(width=0), hoverinfo="skip",
            showlegend=False, legendgroup=method))
        fig.add_trace(go.Scatter(x=levels, y=mean, mode="lines+markers", name=method_name(
            method), line=dict(color=color, width=3), legendgroup=method,
            hovertemplate="%{x:.0f}% noise: %{y:.3f}<extra>%{fullData.name}</extra>"))
    fig.update_xaxes(title_text="share of answers replaced by noise (%)")
    fig.update_yaxes(title_text="pairwise accuracy (0.5 = guessing)",
                     range=_accuracy_range(values))
    return _layout(fig, "What happens as more raters answer carelessly?",
                   legend=dict(orientation="h", y=-0.3))


def scale_chart(result) -> go.Figure:
    """Seconds against magnification on log–log axes, with a line for "in proportion"."""
    fig = go.Figure()
    factors = np.asarray(result.factors, dtype=float)
    for i, method in enumerate(result.methods):
        fig.add_trace(go.Scatter(
            x=factors, y=result.seconds[i], mode="lines+markers",
            name=method_name(method),
            error_y=dict(type="data", array=result.std[i], visible=True),
            line=dict(color=method_color(method), width=3), customdata=result.n_preferences,
            hovertemplate="×%{x} (%{customdata} lists): %{y:.3g} s<extra>%{fullData.name}"
                          "</extra>"))
    start = float(np.median([row[0] for row in result.seconds]))
    fig.add_trace(go.Scatter(x=factors, y=start * factors / factors[0], mode="lines",
                             name="in proportion to the data",
                             line=dict(color="#999999", dash="dot", width=2),
                             hoverinfo="skip"))
    fig.update_xaxes(type="log", dtick=1, title_text="data duplicated × times (log scale)")
    fig.update_yaxes(type="log", dtick=1, title_text="seconds (log scale)")
    return _layout(fig, "Does the time grow in step with the data?",
                   legend=dict(orientation="h", y=-0.3))


# ---------------------------------------------------------------- consensus
def consensus_chart(scores, lower, upper, item_names: Sequence[str], max_items: int = 40
                    ) -> go.Figure:
    """Posterior mean worth of each item with its credible interval, best at the top."""
    order = np.argsort(-np.asarray(scores), kind="stable")[:max_items]
    fig = go.Figure(go.Scatter(
        x=np.asarray(scores)[order], y=[plot_text(item_names[i]) for i in order],
        mode="markers", marker=dict(size=12, color="#1f5fa8"),
        error_x=dict(type="data", symmetric=False,
                     array=np.asarray(upper)[order] - np.asarray(scores)[order],
                     arrayminus=np.asarray(scores)[order] - np.asarray(lower)[order]),
        hovertemplate="%{y}: %{x:.3g}<extra></extra>"))
    return _layout(fig, "Consensus strength of each item (with 90% interval)",
                   height=max(CHART_HEIGHT, 24 * len(order) + 120),
                   xaxis_title="strength (higher is better)", yaxis=dict(autorange="reversed"))


def rank_heatmap(probabilities, order, item_names: Sequence[str], max_items: int = 30
                 ) -> go.Figure:
    """``P(item at rank r)`` for the top items of ``order`` (items × ranks)."""
    order = np.asarray(order)[:max_items]
    ranks = min(probabilities.shape[1], max_items)
    z = np.asarray(probabilities)[order][:, :ranks]
    fig = go.Figure(go.Heatmap(
        z=z, x=[str(r + 1) for r in range(ranks)], y=[plot_text(item_names[i]) for i in order],
        colorscale="Blues", zmin=0.0, zmax=1.0,
        hovertemplate="%{y} at rank %{x}: %{z:.0%}<extra></extra>",
        colorbar=dict(title="chance")))
    return _layout(fig, "How sure is each position? (chance of each item at each rank)",
                   height=max(CHART_HEIGHT, 24 * len(order) + 140),
                   xaxis_title="rank", yaxis=dict(autorange="reversed"))


#: Rater dots, as the captions name them: known careless raters filled red, raters a model
#: flags (or that stand out) orange, the others blue.
CARELESS_RED = "#B2182B"
FLAGGED_ORANGE = "#E69F00"
CAREFUL_BLUE = "#1f5fa8"


def rater_chart(agreement, max_raters: int | None = 40,
                careless: Sequence[int] | None = None) -> go.Figure:
    """Each rater's agreement with the consensus as a dot, least consistent at the top.

    Dots instead of bars: the axis (log-likelihood per choice, closer to 0 is better) has no
    natural zero, so a bar's length would mean nothing. ``careless`` (known careless raters)
    draws them as filled red dots.
    """
    values = np.asarray(agreement.mean_log_likelihood)
    k, note = _shown(values.size, max_raters)
    order = np.argsort(values, kind="stable")[:k]
    outlier = np.asarray(agreement.outlier)[order]
    fig = go.Figure()
    known = np.isin(order, np.asarray(careless if careless is not None else [], dtype=int))
    for mask, name, color, symbol in [
            (~outlier & ~known, "fits like the others", CAREFUL_BLUE, "circle-open"),
            (outlier & ~known, "stands out", FLAGGED_ORANGE, "circle-open"),
            (known, "careless (known)", CARELESS_RED, "circle")]:
        if careless is None and name == "careless (known)":
            continue
        fig.add_trace(go.Scatter(
            x=values[order][mask], y=[plot_text(agreement.names[i]) for i in order[mask]],
            mode="markers", name=name, marker=dict(size=12, color=color, symbol=symbol,
                                                   line=dict(width=2, color=color)),
            customdata=np.asarray(agreement.n_preferences)[order][mask],
            hovertemplate="%{y}: %{x:.3f} per choice (%{customdata} lists)<extra></extra>"))
    chance = float(np.mean(agreement.uniform_log_likelihood))
    fig.add_trace(go.Scatter(x=[chance, chance], y=[plot_text(agreement.names[order[0]]),
                                                    plot_text(agreement.names[order[-1]])],
                             mode="lines", name="guessing",
                             line=dict(color="#555555", dash="dash"), hoverinfo="skip"))
    fig.update_yaxes(categoryorder="array",
                     categoryarray=[plot_text(agreement.names[i]) for i in order],
                     autorange="reversed")
    return _layout(fig, "Which raters disagree with the consensus? (lowest first)" + note,
                   height=max(CHART_HEIGHT, 22 * len(order) + 160),
                   xaxis_title="agreement with the consensus (log-likelihood per choice; "
                               "closer to 0 is better)",
                   legend=dict(orientation="h", y=-0.15 if len(order) > 20 else -0.3))


def careless_chart(careless, max_raters: int | None = 40,
                   truth: Sequence[int] | None = None) -> go.Figure:
    """Each rater's posterior chance of answering at random (a mixture model), highest first.

    ``truth`` (the raters known to be careless, e.g. a scenario's) draws them as filled red
    dots and the others as hollow blue ones.
    """
    values = np.asarray(careless.probability)
    k, note = _shown(values.size, max_raters)
    order = np.argsort(-values, kind="stable")[:k]
    if truth is None:
        groups = [(values[order] > 0.5, "more likely careless", FLAGGED_ORANGE, "circle"),
                  (values[order] <= 0.5, "more likely careful", CAREFUL_BLUE, "circle")]
    else:
        known = np.isin(order, np.asarray(truth, dtype=int))
        groups = [(known, "made noisy / careless (known)", CARELESS_RED, "circle"),
                  (~known, "careful (known)", CAREFUL_BLUE, "circle-open")]
    fig = go.Figure()
    for mask, name, color, symbol in groups:
        fig.add_trace(go.Scatter(
            x=values[order][mask], y=[plot_text(careless.names[i]) for i in order[mask]],
            mode="markers", name=name,
            marker=dict(size=12, color=color, symbol=symbol, line=dict(width=2, color=color)),
            customdata=np.asarray(careless.n_preferences)[order][mask],
            hovertemplate="%{y}: %{x:.0%} (%{customdata} lists)<extra></extra>"))
    fig.add_trace(go.Scatter(x=[0.5, 0.5], y=[plot_text(careless.names[order[0]]),
                                              plot_text(careless.names[order[-1]])],
                             mode="lines", name="flagged above 50%",
                             line=dict(color="#555555", dash="dash"), hoverinfo="skip"))
    fig.update_xaxes(range=[0, 1], tickformat=".0%")
    fig.update_yaxes(categoryorder="array",
                     categoryarray=[plot_text(careless.names[i]) for i in order],
                     autorange="reversed")
    return _layout(fig, f"Which raters answered at random? (estimated share: {careless.pi:.0%})"
                   + note, height=max(CHART_HEIGHT, 22 * len(order) + 160),
                   xaxis_title="chance that the rater answered at random",
                   legend=dict(orientation="h", y=-0.15 if len(order) > 20 else -0.3))


def highlight_moved(rows: list[dict]):
    """The before/after table with the places whose item changed highlighted (a Styler)."""
    import pandas as pd

    frame = pd.DataFrame(rows)

    def colour(row):
        moved = bool(row["moved (noisy copy)"])
        return ["background-color: #fde2c8" if moved and column != "place"
                and column != "original data" else "" for column in row.index]

    return frame.style.apply(colour, axis=1)

