"""The ranking methods, one module per family; the registry (../registry.py) lists them."""

from .baselines import borda, copeland
from .bradley_terry import coarsen_bt
from .consensus import consensus
from .crowdbt import crowdbt
from .mixture import pl_mix, pl_mix_ranker
from .peergrader import peergrader
from .pl_gradient import pl_lbfgs
from .plackett_luce import coarsen_pl, coarsen_pl_gibbs, pl_em
from .thurstone import coarsen_th

__all__ = ["borda", "coarsen_bt", "coarsen_pl", "coarsen_pl_gibbs", "coarsen_th", "consensus",
           "copeland", "crowdbt", "peergrader", "pl_em", "pl_lbfgs", "pl_mix", "pl_mix_ranker"]
