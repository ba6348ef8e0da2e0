"""The ranking methods, one module per family; the registry (../registry.py) lists them.

The fitters are exported here, except ``crowdbt``, ``peergrader`` and ``consensus``: each
has the name of its own module, and binding the function to the package would hide that
module (``from coarsenrank_core.models import crowdbt`` must stay the module). Import those
three from their modules, e.g. ``from coarsenrank_core.models.crowdbt import crowdbt``.
"""

from .baselines import borda, copeland
from .bradley_terry import coarsen_bt
from .mixture import pl_mix, pl_mix_ranker
from .pl_gradient import pl_lbfgs
from .plackett_luce import coarsen_pl, coarsen_pl_gibbs, pl_em
from .thurstone import coarsen_th

__all__ = ["borda", "coarsen_bt", "coarsen_pl", "coarsen_pl_gibbs", "coarsen_th", "copeland",
           "pl_em", "pl_lbfgs", "pl_mix", "pl_mix_ranker"]
