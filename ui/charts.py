"""Plotly figures built from engine results; pure functions, testable without a browser."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from .theme import CHART_HEIGHT, FONT_SIZE, METHOD_NAMES, method_color, plot_text

__all__ = ["length_histogram", "ranker_histogram", "coverage_chart", "dic_chart",
           "accuracy_chart", "timing_chart", "agreement_heatmap", "robustness_chart",
           "scale_chart", "rank_heatmap", "rater_chart", "consensus_chart", "careless_chart",
           "cv_chart"]


def _layout(fig: go.Figure, title: str, height: int = CHART_HEIGHT, **kwargs) -> go.Figure:
    fig.update_layout(title=dict(text=title, x=0.0, font=dict(size=FONT_SIZE + 3)),
                      font=dict(size=FONT_SIZE), height=height, template="plotly_white",
                      margin=dict(l=10, r=10, t=60, b=10), **kwargs)
    return fig


def _names(methods: Sequence[str]) -> list[str]:
    return [METHOD_NAMES.get(m, m) for m in methods]


# ---------------------------------------------------------------- data summary
def length_histogram(summary) -> go.Figure:
    """Bar chart: how many preferences have each length."""
    lengths = sorted(summary.length_counts)
    fig = go.Figure(go.Bar(x=[str(k) for k in lengths],
                           y=[summary.length_counts[k] for k in lengths],
                           marker_color="#1f5fa8", hovertemplate="%{y} lists of %{x} items"))
    return _layout(fig, "How long are the lists?", xaxis_title="items in a list",
                   yaxis_title="number of lists")


def ranker_histogram(summary) -> go.Figure:
    """Histogram: how many preferences each rater gave."""
    counts = np.asarray(summary.preferences_per_ranker)
    fig = go.Figure(go.Histogram(x=counts[counts > 0], marker_color="#E69F00",
                                 hovertemplate="%{y} raters gave %{x} lists"))
    return _layout(fig, "How much did each rater answer?", xaxis_title="lists per rater",
                   yaxis_title="number of raters", bargap=0.05)


def coverage_chart(summary, item_names: Sequence[str], max_items: int = 40) -> go.Figure:
    """Horizontal bars: in how many lists each item appears (least-covered items first)."""
    appearances = np.asarray(summary.appearances)
    order = np.argsort(appearances, kind="stable")[:max_items]
    fig = go.Figure(go.Bar(y=[plot_text(item_names[i]) for i in order],
                           x=appearances[order], orientation="h", marker_color="#009E73",
                           hovertemplate="%{y}: in %{x} lists<extra></extra>"))
    shown = "" if appearances.size <= max_items else f" ({max_items} least covered)"
    return _layout(fig, f"How often was each item ranked?{shown}",
                   height=max(CHART_HEIGHT, 22 * len(order) + 120),
                   xaxis_title="lists containing the item", yaxis=dict(autorange="reversed"))


# ---------------------------------------------------------------- DIC
_CURVE_LABELS = {"dic": "DIC = g − f (lower is better)",
                 "f": "f: fit, mean log-likelihood (higher is better)",
                 "g": "g: complexity"}


def dic_chart(result, curves: Sequence[str] = ("dic",), chosen_alpha: float | None = None
              ) -> go.Figure:
    """DIC (and optionally f and g) against α on a log axis, marking the knee and the minimum.

    The knee is drawn where the smoothed curve levels off, which may lie between grid
    points. The lowest DIC is starred only when it is inside the grid; at the grid's end the
    chart says the curve is still falling instead.
    """
    curves = [c for c in ("dic", "f", "g") if c in curves] or ["dic"]
    fig = make_subplots(rows=len(curves), cols=1, shared_xaxes=True, vertical_spacing=0.08,
                        subplot_titles=[_CURVE_LABELS[c] for c in curves])
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
                marker=dict(size=18, color=color, symbol=symbol, line=dict(width=1)),
                hovertemplate=f"{label}: α = %{{x:.3g}}<extra></extra>"), row=row, col=1)
        if chosen_alpha is not None and np.isfinite(chosen_alpha):
            fig.add_vline(x=chosen_alpha, line_dash="dash", line_color="#7f3c8d", row=row,
                          col=1)
    if falling:
        fig.add_annotation(text="still falling at the largest α tried", x=np.log10(alphas[-1]),
                           y=float(result.dic[-1]), xanchor="right", yanchor="bottom",
                           showarrow=False, font=dict(color="#D55E00"), row=1, col=1)
    fig.update_xaxes(type="log", dtick=1, title_text="α: larger α = smaller neighbourhood = "
                     "trusting the data more", row=len(curves), col=1)
    return _layout(fig, "Choosing α: where does the DIC curve level off?",
                   height=CHART_HEIGHT + 220 * (len(curves) - 1),
                   legend=dict(orientation="h", y=-0.2))


def cv_chart(evidence) -> go.Figure:
    """Held-out log-likelihood (summed over folds) against α; α = ∞ drawn at the right end."""
    alphas = np.asarray(evidence.alphas, dtype=float)
    finite = alphas[np.isfinite(alphas)]
    right = float(finite.max()) * 10 if finite.size else 1.0
    x = np.where(np.isfinite(alphas), alphas, right)
    labels = [f"{a:g}" if np.isfinite(a) else "∞" for a in alphas]
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
def accuracy_chart(comparison) -> go.Figure:
    """Pairwise accuracy and Kendall's τ-b of every method against the ground truth."""
    rows = [r for r in comparison.rows if r.ok]
    names = [plot_text(r.name) for r in rows]
    colors = [method_color(r.method) for r in rows]
    fig = make_subplots(rows=1, cols=2, subplot_titles=(
        "Pairwise accuracy (share of item pairs in the right order)", "Kendall τ-b"))
    fig.add_trace(go.Bar(x=names, y=[r.accuracy for r in rows], marker_color=colors,
                         text=[f"{r.accuracy:.3f}" for r in rows], textposition="outside",
                         name="pairwise accuracy", showlegend=False), row=1, col=1)
    fig.add_trace(go.Bar(x=names, y=[r.kendall_tau for r in rows], marker_color=colors,
                         text=[f"{r.kendall_tau:.3f}" for r in rows], textposition="outside",
                         name="Kendall τ-b", showlegend=False), row=1, col=2)
    low = min([r.accuracy for r in rows] + [0.5])
    fig.update_yaxes(range=[max(0.0, low - 0.1), 1.05], row=1, col=1)
    fig.update_yaxes(range=[-1.0, 1.1], row=1, col=2)
    return _layout(fig, "How close is each method to the true order?")


def timing_chart(comparison) -> go.Figure:
    """Seconds per fit (mean and standard deviation over repeats), log axis."""
    rows = [r for r in comparison.rows if r.ok]
    fig = go.Figure(go.Bar(
        x=[plot_text(r.name) for r in rows], y=[r.seconds_mean for r in rows],
        error_y=dict(type="data", array=[r.seconds_std for r in rows], visible=True),
        marker_color=[method_color(r.method) for r in rows],
        text=[f"{r.seconds_mean:.3g} s" for r in rows], textposition="outside",
        hovertemplate="%{x}: %{y:.3g} s<extra></extra>"))
    fig.update_yaxes(type="log", dtick=1, title_text="seconds (log scale)")
    return _layout(fig, "How long does each method take?")


def agreement_heatmap(comparison) -> go.Figure:
    """Share of item pairs that each two methods order alike."""
    names = [plot_text(r.name) for r in comparison.rows]
    values = np.asarray(comparison.agreement)
    fig = go.Figure(go.Heatmap(
        z=values, x=names, y=names, zmin=0.5, zmax=1.0, colorscale="Blues",
        text=np.where(np.isnan(values), "", np.round(values, 3).astype(str)),
        texttemplate="%{text}", hovertemplate="%{y} vs %{x}: %{z:.3f}<extra></extra>"))
    return _layout(fig, "Do the methods agree? (share of item pairs ordered alike)",
                   yaxis=dict(autorange="reversed"))


def robustness_chart(result) -> go.Figure:
    """Accuracy against noise level per method, with a ±1 standard deviation band."""
    fig = go.Figure()
    levels = 100 * np.asarray(result.levels)
    for i, method in enumerate(result.methods):
        mean, std = result.mean[i], result.std[i]
        color = method_color(method)
        fig.add_trace(go.Scatter(
            x=np.concatenate([levels, levels[::-1]]),
            y=np.concatenate([mean + std, (mean - std)[::-1]]), fill="toself",
            fillcolor=color, opacity=0.15, line=dict(width=0), hoverinfo="skip",
            showlegend=False, legendgroup=method))
        fig.add_trace(go.Scatter(x=levels, y=mean, mode="lines+markers", name=METHOD_NAMES.get(
            method, method), line=dict(color=color, width=3), legendgroup=method,
            hovertemplate="%{x:.0f}% noise: %{y:.3f}<extra>%{fullData.name}</extra>"))
    fig.update_xaxes(title_text="share of answers replaced by noise (%)")
    fig.update_yaxes(title_text="pairwise accuracy")
    return _layout(fig, "What happens as more raters answer carelessly?")


def scale_chart(result) -> go.Figure:
    """Seconds against magnification on log–log axes."""
    fig = go.Figure()
    for i, method in enumerate(result.methods):
        fig.add_trace(go.Scatter(
            x=result.factors, y=result.seconds[i], mode="lines+markers",
            name=METHOD_NAMES.get(method, method),
            error_y=dict(type="data", array=result.std[i], visible=True),
            line=dict(color=method_color(method), width=3), customdata=result.n_preferences,
            hovertemplate="×%{x} (%{customdata} lists): %{y:.3g} s<extra>%{fullData.name}"
                          "</extra>"))
    fig.update_xaxes(type="log", dtick=1, title_text="data duplicated × times (log scale)")
    fig.update_yaxes(type="log", dtick=1, title_text="seconds (log scale)")
    return _layout(fig, "Does the time grow in step with the data?")


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


def rater_chart(agreement, max_raters: int = 40) -> go.Figure:
    """Mean log-likelihood per choice of each rater, least consistent first."""
    values = np.asarray(agreement.mean_log_likelihood)
    order = np.argsort(values, kind="stable")[:max_raters]
    colors = np.where(np.asarray(agreement.outlier)[order], "#D55E00", "#1f5fa8")
    fig = go.Figure(go.Bar(
        x=values[order], y=[plot_text(agreement.names[i]) for i in order], orientation="h",
        marker_color=colors, customdata=np.asarray(agreement.n_preferences)[order],
        hovertemplate="%{y}: %{x:.3f} per choice (%{customdata} lists)<extra></extra>"))
    chance = float(np.mean(agreement.uniform_log_likelihood))
    fig.add_vline(x=chance, line_dash="dash", line_color="#555555",
                  annotation_text="guessing", annotation_position="top")
    return _layout(fig, "Which raters disagree with the consensus? (lowest first)",
                   height=max(CHART_HEIGHT, 22 * len(order) + 140),
                   xaxis_title="agreement with the consensus (log-likelihood per choice; "
                               "closer to 0 is better)", yaxis=dict(autorange="reversed"))


def careless_chart(careless, max_raters: int = 40) -> go.Figure:
    """Each rater's posterior chance of answering at random (a mixture model), highest first."""
    values = np.asarray(careless.probability)
    order = np.argsort(-values, kind="stable")[:max_raters]
    colors = np.where(values[order] > 0.5, "#D55E00", "#1f5fa8")
    fig = go.Figure(go.Bar(
        x=values[order], y=[plot_text(careless.names[i]) for i in order], orientation="h",
        marker_color=colors, customdata=np.asarray(careless.n_preferences)[order],
        hovertemplate="%{y}: %{x:.0%} (%{customdata} lists)<extra></extra>"))
    fig.add_vline(x=0.5, line_dash="dash", line_color="#555555")
    fig.update_xaxes(range=[0, 1], tickformat=".0%")
    return _layout(fig, f"Which raters answered at random? (estimated share: {careless.pi:.0%})",
                   height=max(CHART_HEIGHT, 22 * len(order) + 140),
                   xaxis_title="chance that the rater answered at random",
                   yaxis=dict(autorange="reversed"))
