"""Table rows the pages show: the comparison, the Noise page's before and after, the DIC curve."""

from __future__ import annotations

import streamlit as st

__all__ = ["comparison_table", "ACCURACY_COLUMNS", "before_after_rows", "dic_rows"]


_SHARE = st.column_config.NumberColumn(format="%.3f")
#: Number formats of accuracy tables (shares of item pairs, three decimals).
ACCURACY_COLUMNS = {"accuracy, original": _SHARE, "accuracy, noisy copy": _SHARE,
                    "change": st.column_config.NumberColumn(format="%+.3f")}


def comparison_table(result, timing) -> tuple[list[str], list[list]]:
    """The comparison as a table with plain column names and units.

    ``converged`` is shown as "yes"/"no", or "—" where a method has no stopping rule.
    """
    median = dict(zip(timing.methods, timing.median))
    header = ["method", "pairwise accuracy (share of pairs)", "Kendall τ-b (−1 to 1)",
              f"seconds per fit (median of {timing.runs} runs)", "iterations",
              "stopped by its rule", "problem"]
    rows = []
    for r in result.rows:
        converged = "—" if r.converged is None else ("yes" if r.converged else "no")
        rows.append([r.name,
                     round(r.accuracy, 4) if r.ok and r.accuracy == r.accuracy else "—",
                     round(r.kendall_tau, 4) if r.ok and r.kendall_tau == r.kendall_tau
                     else "—",
                     float(f"{median[r.method]:.3g}") if r.method in median else "—",
                     "—" if r.iterations is None else int(r.iterations), converged,
                     r.error or ""])
    return header, rows


def before_after_rows(before, after) -> list[dict]:
    """The Noise page's table: each method that ran on both, its accuracy before and after
    and the change (see :data:`ACCURACY_COLUMNS`)."""
    return [{"method": b.name, "accuracy, original": b.accuracy,
             "accuracy, noisy copy": a.accuracy, "change": a.accuracy - b.accuracy}
            for b, a in zip(before.rows, after.rows) if b.ok and a.ok]


def dic_rows(result) -> list[dict]:
    """The DIC page's numbers behind the curve: one row per α."""
    return [{"α": a, "τ = α/(α+N)": t, "f (fit)": f, "g (complexity)": g, "DIC = g − f": d}
            for a, t, f, g, d in zip(result.alphas, result.taus, result.f, result.g,
                                     result.dic)]
