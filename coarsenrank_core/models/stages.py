"""The choice stages of the Plackett–Luce likelihood, laid out once for EM, Gibbs and likelihood."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from scipy.special import xlogy

__all__ = ["StageDesign"]

PAIR_COPY_ROWS = 1 << 22
"""Most strict pairs whose ids a design copies to ``intp`` (16 bytes a pair, 64 MB at most)."""


@dataclass(frozen=True)
class _Block:
    """All preferences of one length ``k``, as ``(n, k)`` matrices.

    ``rows`` are the preferences' indices (``row_index``, or ``None`` when the block holds
    every preference in order: then ``rows`` is built on demand and held by nobody).
    ``multiplicity`` is ``None`` for strict orders (one stage at each of the first ``k - 1``
    positions). With ties it holds, at the first entry of every tied group, the number of
    stages whose choice set starts there (the group's size, or 0 for a trailing single
    item), and zero elsewhere; ``chosen`` marks the entries that win a stage. Strict pairs
    also carry their winners and losers as two id arrays (``pair``), so a sum over their
    stages is two ``bincount`` passes: ``intp`` copies up to :data:`PAIR_COPY_ROWS` pairs
    (``bincount`` and ``take`` would convert ``int32`` ids at every call, 40 % of a step),
    views of ``items`` beyond (no memory added to a large collection).
    """

    row_index: np.ndarray | None
    items: np.ndarray
    weights: np.ndarray | None
    multiplicity: np.ndarray | None
    chosen: np.ndarray | None
    pair: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def width(self) -> int:
        return int(self.items.shape[1])

    @property
    def rows(self) -> np.ndarray:
        """Index, in the collection, of every preference of the block."""
        if self.row_index is None:
            return np.arange(self.items.shape[0])
        return self.row_index


def _reverse_cumsum(values: np.ndarray) -> np.ndarray:
    return np.cumsum(values[:, ::-1], axis=1)[:, ::-1]


def _tie_layout(groups: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stage multiplicity at each group start and the entries that win a stage, per row."""
    k = groups.shape[1]
    column = np.arange(k)
    change = groups[:, 1:] != groups[:, :-1]
    starts = np.concatenate([np.ones((len(groups), 1), bool), change], axis=1)
    ends = np.concatenate([change, np.ones((len(groups), 1), bool)], axis=1)
    first = np.maximum.accumulate(np.where(starts, column, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, column, k - 1)[:, ::-1], axis=1)[:, ::-1]
    size = last - first + 1
    chosen = ~((groups == groups[:, -1:]) & (size == 1))
    return np.where(starts & chosen, size, 0).astype(float), chosen


class StageDesign:
    """Index arrays for the stage-wise PL likelihood of a :class:`Preferences` collection.

    Preference ``ρ`` with tied groups ``G_1 > … > G_r`` has, for every group ``G_j`` except a
    trailing single item, ``|G_j|`` choice stages: each member of ``G_j`` is chosen from the
    same remaining set ``G_j ∪ … ∪ G_r`` (Breslow's rule). A strict order of ``k`` items has
    the usual ``k - 1`` stages. ``η`` of a stage is the sum of ``θ`` over its choice set.

    Preferences are grouped by length into dense blocks, so every operation is a handful of
    vectorised passes over arrays of the total preference length; strict pairs sum their
    stages per item with two ``bincount`` passes.
    """

    def __init__(self, n_items: int, n_preferences: int, blocks: list[_Block],
                 wins: np.ndarray, wins_count: np.ndarray):
        self.n_items = n_items
        self.n_preferences = n_preferences
        self.blocks = blocks
        self.wins = wins
        self.wins_count = wins_count

    @classmethod
    def build(cls, prefs: Any) -> StageDesign:
        """Lay out the stages of ``prefs`` (called once; cached on the collection)."""
        n_items, n = prefs.n_items, len(prefs)
        weights = prefs.weights
        unit = weights.strides == (0,) or bool(np.all(weights == 1.0))
        lengths = prefs.lengths
        tied_pref = prefs.n_groups < lengths
        wins = np.zeros(n_items)
        wins_count = np.zeros(n_items, dtype=np.intp)
        blocks = []
        for k in np.unique(lengths):
            k = int(k)
            for tied in (False, True):
                selected = (lengths == k) & (tied_pref == tied)
                if not selected.any():
                    continue
                rows: np.ndarray | None
                if selected.all():  # one block: a view of the flat arrays, no copy
                    rows, items = None, prefs.items.reshape(n, k)
                    element = None
                else:
                    rows = np.flatnonzero(selected)
                    element = prefs.offsets[:-1][rows, None] + np.arange(k)
                    items = prefs.items[element]
                block_weights = None if unit else (weights if rows is None else weights[rows])
                multiplicity = chosen = None
                if tied:
                    groups = (prefs.groups.reshape(n, k) if element is None
                              else prefs.groups[element])
                    multiplicity, chosen = _tie_layout(groups)
                    winners = items[chosen]
                    winner_weight = (None if block_weights is None else
                                     np.broadcast_to(block_weights[:, None], chosen.shape)[chosen])
                else:
                    winners = items[:, :-1].ravel()
                    winner_weight = (None if block_weights is None
                                     else np.repeat(block_weights, k - 1))
                wins += np.bincount(winners, weights=winner_weight, minlength=n_items)
                wins_count += np.bincount(winners, minlength=n_items)
                pair = None
                if k == 2 and not tied:
                    if items.shape[0] <= PAIR_COPY_ROWS:
                        pair = (items[:, 0].astype(np.intp), items[:, 1].astype(np.intp))
                    else:
                        pair = (items[:, 0], items[:, 1])
                blocks.append(_Block(row_index=rows, items=items, weights=block_weights,
                                     multiplicity=multiplicity, chosen=chosen, pair=pair))
        return cls(n_items, n, blocks, wins, wins_count)

    @property
    def stages_per_preference(self) -> np.ndarray:
        """Number of choice stages of every preference (unweighted)."""
        out = np.zeros(self.n_preferences)
        for block in self.blocks:
            count = (block.width - 1 if block.chosen is None else block.chosen.sum(axis=1))
            out[block.rows] = count
        return out

    # ------------------------------------------------------------------ helpers
    def _accumulate(self, block: _Block, per_stage: np.ndarray, out: np.ndarray) -> None:
        """Add to ``out[m]`` the per-stage values of every stage whose set contains ``m``."""
        if block.pair is not None:
            out += np.bincount(block.pair[0], weights=per_stage, minlength=out.size)
            out += np.bincount(block.pair[1], weights=per_stage, minlength=out.size)
            return
        running = np.cumsum(per_stage, axis=1)
        if block.multiplicity is None:
            full = np.empty(block.items.shape)
            full[:, :-1] = running
            full[:, -1] = running[:, -1]
            running = full
        out += np.bincount(block.items.ravel(), weights=running.ravel(), minlength=out.size)

    @staticmethod
    def _eta(block: _Block, theta: np.ndarray) -> np.ndarray:
        """Choice-set sums: ``(n,)`` for pairs, ``(n, k-1)`` strict, ``(n, k)`` with ties."""
        if block.pair is not None:
            return cast(np.ndarray, theta[block.pair[0]] + theta[block.pair[1]])
        eta = _reverse_cumsum(theta[block.items])
        return eta[:, :-1] if block.multiplicity is None else eta

    def _stage_counts(self, block: _Block) -> np.ndarray | float:
        """Weighted number of stages at each choice set (``w`` times the multiplicity)."""
        if block.multiplicity is not None:
            if block.weights is None:
                return block.multiplicity
            return cast(np.ndarray, block.multiplicity * block.weights[:, None])
        if block.weights is None:
            return 1.0
        return block.weights if block.pair is not None else block.weights[:, None]

    # ------------------------------------------------------------------ public
    def exposure(self, theta: np.ndarray, scale: float = 1.0) -> np.ndarray:
        """EM's denominator: ``scale · Σ w/η`` over the stages whose choice set holds ``m``.

        This is the E-step (paper Eq. (27), ``E[ξ] = 1/η``) summed as in the M-step
        (paper Eq. (29)); ``scale`` is τ.
        """
        out = np.zeros(self.n_items)
        for block in self.blocks:
            if block.pair is not None:  # strict pairs: one array of temporaries
                winners, losers = block.pair
                per_stage = theta.take(winners)
                per_stage += theta.take(losers)
                if block.weights is None:
                    np.reciprocal(per_stage, out=per_stage)
                else:
                    np.divide(block.weights, per_stage, out=per_stage)
                out += np.bincount(winners, weights=per_stage, minlength=out.size)
                out += np.bincount(losers, weights=per_stage, minlength=out.size)
                continue
            eta = self._eta(block, theta)
            counts = self._stage_counts(block)
            if block.multiplicity is None:
                per_stage = counts / eta if not np.isscalar(counts) else 1.0 / eta
            else:
                per_stage = np.divide(counts, eta, out=np.zeros_like(eta), where=counts > 0)
            self._accumulate(block, per_stage, out)
        return out * scale if scale != 1.0 else out

    def sample_exposure(self, theta: np.ndarray, tau: float,
                        rng: np.random.Generator) -> np.ndarray:
        """Gibbs: draw ``ξ ~ Gamma(shape τ·w·d, rate η)`` per choice set and sum as in EM."""
        out = np.zeros(self.n_items)
        for block in self.blocks:
            eta = self._eta(block, theta)
            counts = self._stage_counts(block)
            if isinstance(counts, float):
                xi = rng.standard_gamma(tau * counts, size=eta.shape)
            elif block.multiplicity is None:
                assert block.weights is not None  # unit weights give a scalar count
                # strict orders: unit-weight rows share one scalar shape (NumPy's fast
                # path); only the rows of other weights draw their own shape w·τ
                xi = rng.standard_gamma(tau, size=eta.shape)
                heavy = np.flatnonzero(block.weights != 1.0)
                if heavy.size:
                    xi[heavy] = rng.standard_gamma(
                        np.broadcast_to((tau * block.weights[heavy]).reshape(
                            (-1,) + (1,) * (eta.ndim - 1)), xi[heavy].shape))
            else:
                shape = np.broadcast_to(tau * counts, eta.shape)
                xi = np.zeros(eta.shape)
                positive = shape > 0
                xi[positive] = rng.standard_gamma(shape[positive])
            self._accumulate(block, xi / eta, out)
        return out

    def log_likelihood(self, theta: np.ndarray,
                       per_preference: bool = False) -> float | np.ndarray:
        """Untempered PL log-likelihood ``Σ_n w_n log P_θ(ρ_n)`` (paper Eq. (19)).

        Parameters
        ----------
        theta : array, shape (M,)
            Non-negative worths.
        per_preference : bool
            Return the unweighted ``log P_θ(ρ_n)`` of every preference instead of the sum.
        """
        theta = np.asarray(theta, dtype=float)
        with np.errstate(divide="ignore"):
            if not per_preference:
                total = float(np.sum(xlogy(self.wins, theta)))
                for block in self.blocks:
                    log_eta = np.log(self._eta(block, theta))
                    counts = self._stage_counts(block)
                    if block.multiplicity is not None:
                        log_eta = np.where(block.multiplicity > 0, log_eta, 0.0)
                    total -= float(np.sum(counts * log_eta))
                return total
            log_theta = np.log(theta)
            out = np.zeros(self.n_preferences)
            for block in self.blocks:
                log_eta = np.log(self._eta(block, theta))
                log_items = log_theta[block.items]
                if block.multiplicity is None:
                    value = log_items[:, :-1].sum(axis=1) - (
                        log_eta if log_eta.ndim == 1 else log_eta.sum(axis=1))
                else:
                    stage_log_eta = np.where(block.multiplicity > 0, log_eta, 0.0)
                    assert block.chosen is not None  # tied blocks carry both
                    value = (np.where(block.chosen, log_items, 0.0).sum(axis=1)
                             - (block.multiplicity * stage_log_eta).sum(axis=1))
                out[block.rows] = value
            return out
