"""The defaults that more than one caller uses: priors, sampler sizes, the α rule and grid."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

__all__ = ["PRIOR", "EM_SETTINGS", "GIBBS_BURN_IN", "GIBBS_DRAWS", "DIC_SETTINGS",
           "DIC_BURN_IN", "DIC_N_DRAWS", "DIC_WARM_START",
           "ALPHA_RULE", "ALPHA_GRID_SIZE", "QUICK_CHOICE_ENTRIES"]

#: Gamma(shape a, rate b) prior on the worths of every CoarsenPL/PL-EM fit and sampler.
PRIOR = (1.0, 2.0)

#: The closed-form EM of CoarsenPL (paper Algorithm 1) as the registry, the CLI and every
#: page run it: prior :data:`PRIOR` and the paper's §6.1 calibration θ ← (M/2)·θ/Σθ.
EM_SETTINGS: Mapping[str, Any] = MappingProxyType(dict(prior=PRIOR, calibration="paper",
                                                      max_iter=500, tol=1e-8))

#: Burn-in sweeps and kept draws of the exact Gibbs sampler when it is the fitted method.
GIBBS_BURN_IN = 100
GIBBS_DRAWS = 200

#: Sampler settings of every DIC sweep (the α rule, the DIC page, ``coarsenrank dic`` and
#: :func:`~coarsenrank_core.dic.dic_sweep`'s own defaults): the chained sweep.
DIC_BURN_IN = 100
DIC_N_DRAWS = 100
DIC_WARM_START = "chain"
DIC_SETTINGS: Mapping[str, Any] = MappingProxyType(dict(burn_in=DIC_BURN_IN, n_draws=DIC_N_DRAWS,
                                     warm_start=DIC_WARM_START))

#: The α rule used whenever nobody says otherwise (see :mod:`coarsenrank_core.alpha`).
ALPHA_RULE = "knee"

#: Points of the automatic log-spaced α grid.
ALPHA_GRID_SIZE = 15

#: Distinct list entries (identical lists merged: what the sampler walks) up to which
#: choosing α from the data is quick enough to wait for before a page is drawn (the default
#: rule's sweep then takes well under half a second); above it a provisional α is shown
#: first and refined afterwards (``ui/alpha.py``).
QUICK_CHOICE_ENTRIES = 5_000
