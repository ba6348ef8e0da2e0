"""Typed, read-only records of what each method (or noise injector) reports besides scores.

Every fitting method returns a :class:`~coarsenrank_core.results.RankingResult` whose
``extra`` is one of the records below: :class:`Outputs` itself (empty) for the methods with
nothing more to say (PL-EM, CoarsenPL, its Gibbs sampler, Borda, Copeland), or the
subclass of its family. :class:`~coarsenrank_core.noise.NoiseResult` uses the same records
for the injectors' facts.

The records are frozen dataclasses: no field can be assigned, array fields are read-only
copies (read-only again after unpickling), and they pickle, as ``st.cache_data`` and worker
processes need. Each is also a read-only :class:`~collections.abc.Mapping` from field name
to value, so ``result.extra.reliability`` and ``result.extra["reliability"]`` are the same
array. A field left at ``None`` (an output the run did not produce, such as
:attr:`ThurstoneOutputs.note`) is not a key of the mapping.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from .frozen import readonly_array, restore_readonly

__all__ = ["Outputs", "BradleyTerryOutputs", "GradientOutputs", "ThurstoneOutputs",
           "PeerGraderOutputs", "CrowdBTOutputs", "MixtureOutputs", "SpammerOutputs"]


#: ``metadata`` of the array fields: each is stored as a read-only copy of this dtype.
_FLOATS: Mapping[str, Any] = {"dtype": float}
_IDS: Mapping[str, Any] = {"dtype": np.intp}


@dataclass(frozen=True, eq=False)
class Outputs(Mapping[str, Any]):
    """Method-specific outputs: the base record, empty itself.

    A read-only mapping from field name to value (fields left at ``None`` are not keys);
    the subclasses add the fields. Equality is the mapping's, as for a ``dict``.
    """

    def __post_init__(self):
        for spec in fields(self):
            value = getattr(self, spec.name)
            if "dtype" in spec.metadata:
                object.__setattr__(self, spec.name, readonly_array(value, spec.metadata["dtype"]))
            elif isinstance(value, np.ndarray):
                object.__setattr__(self, spec.name, readonly_array(value, value.dtype))

    def __setstate__(self, state):
        restore_readonly(self, state)

    def _names(self) -> list[str]:
        return [spec.name for spec in fields(self) if getattr(self, spec.name) is not None]

    def __getitem__(self, key: str) -> Any:
        if key in self._names():
            return getattr(self, key)
        raise KeyError(key)

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


@dataclass(frozen=True, eq=False)
class BradleyTerryOutputs(Outputs):
    """What CoarsenBT reports besides the scores.

    Attributes
    ----------
    n_pairs : int
        Number of pairs the lists were rank-broken into (and fitted).
    """

    n_pairs: int


@dataclass(frozen=True, eq=False)
class GradientOutputs(Outputs):
    """What the L-BFGS fit of Plackett–Luce (``"pl"``) reports besides the scores.

    Attributes
    ----------
    objective : float
        The maximised objective at the end of the fit.
    gradient_norm : float
        Largest absolute entry of its gradient there.
    message : str
        The optimiser's closing message.
    """

    objective: float
    gradient_norm: float
    message: str


@dataclass(frozen=True, eq=False)
class ThurstoneOutputs(GradientOutputs):
    """What CoarsenTH reports besides the scores: :class:`GradientOutputs` plus the pairs.

    Attributes
    ----------
    objective, gradient_norm, message
        As for :class:`GradientOutputs`.
    n_pairs : int
        Number of strict pairs the lists were rank-broken into.
    slope : float
        Slope of the logistic link that stands in for the normal CDF.
    note : str or None
        Why the fit says nothing about the order (every preference entirely tied);
        ``None`` (and then not a key) otherwise.
    """

    n_pairs: int
    slope: float
    note: str | None = None


@dataclass(frozen=True, eq=False)
class PeerGraderOutputs(Outputs):
    """What PeerGrader reports besides the scores.

    Attributes
    ----------
    reliability : numpy.ndarray of float, shape (R,)
        Reliability ``η`` of every ranker id.
    inner_iterations : int
        L-BFGS iterations in all.
    newton_steps : int
        Newton steps of the reliability updates (0 for the joint solver).
    solver : str
        ``"joint"``, ``"alternating"``, or ``"fixed"`` when the reliabilities were not fitted.
    objective : float
        The objective ``J`` at the end.
    """

    reliability: np.ndarray = field(metadata=_FLOATS)
    inner_iterations: int
    newton_steps: int
    solver: str
    objective: float


@dataclass(frozen=True, eq=False)
class CrowdBTOutputs(Outputs):
    """What CrowdBT reports besides the scores (the posterior means).

    Attributes
    ----------
    reliability : numpy.ndarray of float, shape (R,)
        Posterior mean ``a / (a + b)`` of every ranker id's reliability.
    reliability_a, reliability_b : numpy.ndarray of float, shape (R,)
        The Beta parameters ``a`` and ``b`` of every ranker id's reliability.
    score_variance : numpy.ndarray of float, shape (M,)
        Posterior variance ``σ²`` of every item's score.
    """

    reliability: np.ndarray = field(metadata=_FLOATS)
    reliability_a: np.ndarray = field(metadata=_FLOATS)
    reliability_b: np.ndarray = field(metadata=_FLOATS)
    score_variance: np.ndarray = field(metadata=_FLOATS)


@dataclass(frozen=True, eq=False)
class MixtureOutputs(Outputs):
    """What the PL mixtures (``"pl-mix"``, ``"pl-mix-ranker"``) report besides the scores.

    Attributes
    ----------
    noise_probability : numpy.ndarray of float
        Posterior probability of not being a careful PL answer: one per list
        (``per="list"``) or per ranker id (``per="ranker"``).
    reversed_probability : numpy.ndarray of float
        The same shape: posterior probability of the upside-down component (zeros without it).
    pi : float
        Share of noise, uniform plus reversed.
    pi_uniform, pi_reversed : float
        The two parts of ``pi`` (``pi_reversed`` is 0 without the reversed component).
    per : str
        ``"list"`` or ``"ranker"``: what shares one noise label.
    log_posterior : float
        The objective EM increased, at the end.
    """

    noise_probability: np.ndarray = field(metadata=_FLOATS)
    reversed_probability: np.ndarray = field(metadata=_FLOATS)
    pi: float
    pi_uniform: float
    pi_reversed: float
    per: str
    log_posterior: float


@dataclass(frozen=True, eq=False)
class SpammerOutputs(Outputs):
    """What the ``"spammers"`` noise injector reports about the copy it made.

    Attributes
    ----------
    spammers : numpy.ndarray of intp
        The ranker ids made spammers, sorted.
    """

    spammers: np.ndarray = field(metadata=_IDS)
