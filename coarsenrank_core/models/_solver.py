"""The solver the gradient methods share: L-BFGS-B, the virtual node, warm starts, checks."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from ..errors import check_stop
from ..preferences import Preferences

__all__ = ["virtual_node_penalty", "log_sigmoid", "run_lbfgs", "check_common", "em_start",
           "initial_scores"]

_FTOL = 1e-15  # L-BFGS-B's relative-decrease test, kept near machine precision


def virtual_node_penalty(scores: np.ndarray, slope: float = 1.0) -> tuple[float, np.ndarray]:
    """Log-likelihood of the virtual-node comparisons and its gradient.

    A virtual item of score 0 is beaten once by every item and beats every item once
    (Chen et al., WSDM 2013, §4; paper §6.1), each comparison under the logistic link
    ``σ(slope · (s_winner − s_loser))``::

        R(s) = Σ_m [log σ(slope·s_m) + log σ(−slope·s_m)]
             = Σ_m [slope·s_m − 2·log(1 + exp(slope·s_m))],
        ∂R/∂s_m = −slope · tanh(slope·s_m / 2).

    With ``slope = 1`` this is the PL (= Bradley–Terry) probability against an item of
    worth 1. ``R`` is concave with its maximum at ``s = 0``.

    Parameters
    ----------
    scores : array, shape (M,)
        Scores (log-worths).
    slope : float
        Slope λ of the logistic link.

    Returns
    -------
    (float, numpy.ndarray)
        ``R(s)`` and its gradient.
    """
    z = slope * np.asarray(scores, dtype=float)
    value = -float(np.sum(np.logaddexp(0.0, z) + np.logaddexp(0.0, -z)))
    return value, -slope * np.tanh(z / 2)


def log_sigmoid(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log σ(z)`` and ``1 − σ(z)`` from one pass of ``expit`` (cheaper than ``logaddexp``)."""
    p = expit(z)
    with np.errstate(divide="ignore"):
        log_p = np.log(p)
    if p.size and p.min() == 0.0:
        underflow = p == 0.0
        log_p[underflow] = log_expit(z[underflow])
    return log_p, 1.0 - p


def run_lbfgs(fun: Callable, x0: np.ndarray, max_iter: int, tol: float, trace: bool,
              sign: float = -1.0, bounds=None, should_stop=None, name: str = "L-BFGS") -> dict:
    """Minimise ``fun`` (returning value and gradient) with scipy's L-BFGS-B.

    ``tol`` is L-BFGS-B's ``gtol``: stop when the largest gradient entry is below it.
    ``should_stop`` is called after every iteration; when it returns true
    :class:`~coarsenrank_core.errors.Cancelled` is raised (naming ``name``).
    Returns the final point, iteration count, success flag, the relative L1 change of the
    last step, the value and gradient, and (with ``trace``) ``sign ×`` the objective after
    every iteration (``sign = -1`` turns a minimised loss back into the maximised value).
    """
    history = {"previous": np.array(x0, dtype=float), "change": float("inf"), "values": []}

    def callback(intermediate_result):
        x = intermediate_result.x
        previous = history["previous"]
        size = np.abs(previous).sum()
        step = np.abs(x - previous).sum()
        history["change"] = float(step / size) if size > 0 else float("inf")
        history["previous"] = x.copy()
        if trace:
            history["values"].append(sign * float(intermediate_result.fun))
        history["nit"] = history.get("nit", 0) + 1
        check_stop(should_stop, f"{name} was stopped after {history['nit']} iterations.")

    result = minimize(fun, np.array(x0, dtype=float), jac=True, method="L-BFGS-B",
                      callback=callback, bounds=bounds,
                      options={"maxiter": int(max_iter), "gtol": float(tol), "ftol": _FTOL})
    grad = np.asarray(result.jac, dtype=float)
    change = 0.0 if result.nit == 0 else history["change"]
    return {"x": result.x, "nit": int(result.nit), "success": bool(result.success),
            "change": change, "fun": float(result.fun), "grad": grad,
            "message": str(result.message), "values": np.array(history["values"])}


def check_common(max_iter: int, tol: float, regularization: float, l2: float = 0.0) -> None:
    if max_iter < 1 or not tol >= 0:
        raise ValueError("max_iter must be >= 1 and tol >= 0")
    if not (regularization >= 0 and l2 >= 0 and np.isfinite(regularization) and np.isfinite(l2)):
        raise ValueError("regularisation weights must be finite and non-negative")


def em_start(prefs: Preferences, max_iter: int = 100, tol: float = 1e-6) -> np.ndarray:
    """Log-worths from a short accelerated PL-EM, centred: the warm start of the L-BFGS fits.

    Uses :func:`~coarsenrank_core.models.plackett_luce.coarsen_pl` at ``α = ∞`` with a Gamma(2, 1)
    prior (so every worth stays positive and the scale is near 1, where the virtual-node
    and Gaussian terms of the L-BFGS objectives put it). It is only a starting point: the
    L-BFGS methods then converge to their own optimum.
    """
    from .plackett_luce import coarsen_pl

    if len(prefs) == 0:
        return np.zeros(prefs.n_items)
    theta = coarsen_pl(prefs, alpha=np.inf, prior=(2.0, 1.0), calibration=None,
                       max_iter=max_iter, tol=tol).scores
    s = np.log(np.maximum(theta, 1e-300))
    return s - s.mean()


def initial_scores(init, n_items: int, prefs: Preferences | None = None) -> np.ndarray:
    if isinstance(init, str):
        if init != "em" or prefs is None:
            raise ValueError(f"init must be None, 'em' or M scores, not {init!r}")
        return em_start(prefs)
    if init is None:
        return np.zeros(n_items)
    scores = np.array(init, dtype=float)
    if scores.shape != (n_items,) or not np.all(np.isfinite(scores)):
        raise ValueError("init must hold M finite scores")
    return scores
