"""Solver pieces the models share: L-BFGS-B, the virtual node, warm starts, checks, and the
SQUAREM cycle of the EM fits."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy.optimize import minimize
from scipy.special import expit, log_expit

from ..errors import ShouldStop, check_stop

__all__ = ["virtual_node_penalty", "log_sigmoid", "run_lbfgs", "check_common", "squarem_step"]

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


#: How far above gtol a stalled line search's gradient may be and still count as converged.
_STALLED_GTOL = 10.0


def run_lbfgs(fun: Callable[[np.ndarray], tuple[float, np.ndarray]], x0: ArrayLike,
              max_iter: int, tol: float, trace: bool, sign: float = -1.0, bounds: Any = None,
              should_stop: ShouldStop | None = None, name: str = "L-BFGS") -> dict[str, Any]:
    """Minimise ``fun`` (returning value and gradient) with scipy's L-BFGS-B.

    ``tol`` is L-BFGS-B's ``gtol``: stop when the largest gradient entry is below it.
    ``should_stop`` is called after every iteration; when it returns true
    :class:`~coarsenrank_core.errors.Cancelled` is raised (naming ``name``).
    Returns the final point, iteration count, success flag, the relative L1 change of the
    last step, the value and gradient, and (with ``trace``) ``sign ×`` the objective after
    every iteration (``sign = -1`` turns a minimised loss back into the maximised value).
    """
    history: dict[str, Any] = {"previous": np.array(x0, dtype=float), "change": float("inf"),
                               "values": []}

    def callback(intermediate_result: Any) -> None:
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
    # a line search that can no longer improve a point whose gradient is within a few
    # times gtol has met the limits of floating point, not failed: it has converged
    stalled = "ABNORMAL" in str(result.message).upper() and grad.size and bool(
        np.max(np.abs(grad)) <= _STALLED_GTOL * float(tol))
    return {"x": result.x, "nit": int(result.nit),
            "success": bool(result.success) or bool(stalled),
            "change": change, "fun": float(result.fun), "grad": grad,
            "message": str(result.message), "values": np.array(history["values"])}


def check_common(max_iter: int, tol: float, regularization: float, l2: float = 0.0) -> None:
    if max_iter < 1 or not tol >= 0:
        raise ValueError("max_iter must be >= 1 and tol >= 0")
    if not (regularization >= 0 and l2 >= 0 and np.isfinite(regularization) and np.isfinite(l2)):
        raise ValueError("regularisation weights must be finite and non-negative")


def _non_negative(x: np.ndarray) -> bool:
    return bool(np.all(x >= 0) and np.all(np.isfinite(x)))


def squarem_step(step: Callable[[np.ndarray], np.ndarray], x: np.ndarray, step_max: float,
                 change: Callable[[np.ndarray, np.ndarray], float], *,
                 residual: Callable[[np.ndarray, np.ndarray], float] | None = None,
                 admissible: Callable[[np.ndarray], bool] = _non_negative,
                 ) -> tuple[np.ndarray, float, int, float]:
    """One SQUAREM cycle around the fixed-point map ``F`` of an EM (or MM) algorithm.

    Scheme S3 of Varadhan & Roland (2008), with their step-length bounds: two plain steps
    ``x₁ = F(x)`` and ``x₂ = F(x₁)`` give ``r = x₁ − x`` and ``v = x₂ − 2x₁ + x``; the
    extrapolation ``x' = x − 2s r + s² v`` with ``s = −‖r‖₂/‖v‖₂``, clipped to
    ``[−step_max, −1]``, is followed by one stabilising step ``F(x')``. ``step_max`` grows
    fourfold whenever the clip binds and shrinks fourfold (not below 1) when the
    extrapolation is rejected. The extrapolated point is kept only when it is
    ``admissible`` and its residual ``residual(x', F(x'))`` is not larger than the residual
    ``residual(x, x₁)`` at the start; otherwise the cycle returns ``x₂`` (two plain steps).
    Any fixed point of the cycle is a fixed point of ``F``.

    Parameters
    ----------
    step : callable
        The fixed-point map ``F``: one plain EM step on the flat parameter vector.
    x : numpy.ndarray, shape (P,)
        The current parameters.
    step_max : float
        Current bound on ``|s|`` (start at 1).
    change : callable
        ``change(y, F(y))``: the size of a plain step from ``y``, as the caller's stopping
        rule measures it (e.g. a relative L1 change).
    residual : callable, optional
        ``residual(y, F(y))``: the size of the residual compared to accept an extrapolation;
        default ``change``.
    admissible : callable, optional
        Whether an extrapolated point lies in the parameter space; default: every entry
        finite and non-negative.

    Returns
    -------
    (numpy.ndarray, float, int, float)
        The next parameters, the ``change`` of the last plain step taken, the number of
        evaluations of ``F`` (2 or 3), and the updated ``step_max``.

    References
    ----------
    R. Varadhan and C. Roland, "Simple and globally convergent methods for accelerating the
    convergence of any EM algorithm", *Scandinavian Journal of Statistics* 35(2), 335–353
    (2008).
    """
    residual = change if residual is None else residual
    first = step(x)
    second = step(first)
    r = first - x
    v = second - 2 * first + x
    norm_r, norm_v = float(np.sqrt(r @ r)), float(np.sqrt(v @ v))
    plain = change(first, second)
    if not (norm_r > 0 and norm_v > 0):
        return second, plain, 2, step_max
    s = max(-step_max, min(-1.0, -norm_r / norm_v))
    if s == -step_max:
        step_max *= 4.0
    extrapolated = x - 2 * s * r + s * s * v
    if not admissible(extrapolated):
        return second, plain, 2, step_max
    stabilised = step(extrapolated)
    if not residual(extrapolated, stabilised) <= residual(x, first):
        return second, plain, 3, max(1.0, step_max / 4.0)
    return stabilised, change(extrapolated, stabilised), 3, step_max
