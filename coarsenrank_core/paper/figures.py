"""The published figures of Pan et al. (JMLR 2022) and the released code's hyper-parameters."""

from __future__ import annotations

from typing import Any

PAPER_METHOD_ORDER = ("pl", "pl-em", "crowdbt", "peergrader", "coarsen-th", "coarsen-bt",
                      "coarsen-pl")

# Table "Accuracy" (pairwise accuracy, the paper's "Kendall tau similarity").
ACCURACY = {
    "pl": {"readlevel": 0.6853, "sushi": 0.8554, "babyface": 0.8824, "peergrading": 0.8023},
    "pl-em": {"readlevel": 0.6879, "sushi": 0.8578, "babyface": 0.8824, "peergrading": 0.8014},
    "crowdbt": {"readlevel": 0.6944, "sushi": 0.8765, "babyface": 0.9085, "peergrading": 0.8060},
    "peergrader": {"readlevel": 0.6965, "sushi": 0.8588, "babyface": 0.9150,
                   "peergrading": 0.8040},
    "coarsen-th": {"readlevel": 0.6897, "sushi": 0.8731, "babyface": 0.9085,
                   "peergrading": 0.8095},
    "coarsen-bt": {"readlevel": 0.7436, "sushi": 0.8740, "babyface": 0.8889,
                   "peergrading": 0.8117},
    "coarsen-pl": {"readlevel": 0.7436, "sushi": 0.8970, "babyface": 0.9020,
                   "peergrading": 0.8130},
}

# Table "Ablation": BabyFace with a share of each annotator's preferences.
ABLATION_RATIOS = (0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.00)
ABLATION_ANNOTATIONS = (1.19, 3, 6, 11.95, 23.43, 46.76, 93.67, 146.38)
ABLATION = {
    "pl": (0.7778, 0.7582, 0.8497, 0.8693, 0.8824, 0.8824, 0.8824, 0.8824),
    "pl-em": (0.6928, 0.6863, 0.8235, 0.8497, 0.8497, 0.8562, 0.8824, 0.8824),
    "crowdbt": (0.7843, 0.7908, 0.8627, 0.8824, 0.8824, 0.9085, 0.9020, 0.9085),
    "peergrader": (0.8497, 0.8562, 0.8562, 0.8824, 0.9085, 0.9085, 0.9150, 0.9150),
    "coarsen-th": (0.8824, 0.8824, 0.8824, 0.8824, 0.8824, 0.8824, 0.8889, 0.9085),
    "coarsen-bt": (0.8824, 0.8824, 0.8824, 0.8824, 0.8824, 0.8824, 0.8889, 0.8889),
    "coarsen-pl": (0.8301, 0.8431, 0.8627, 0.8693, 0.8758, 0.9085, 0.9085, 0.9020),
}

# Table "Computation": learning time (s, mean and sd over 50 runs, 15 inner iterations, i5).
COMPUTATION = {
    "pl": {"readlevel": (0.793, 0.050), "sushi": (10.416, 1.605), "babyface": (1.522, 0.087),
           "peergrading": (1.250, 0.075)},
    "pl-em": {"readlevel": (1.352, 0.124), "sushi": (2.305, 0.338),
              "babyface": (0.475, 0.038), "peergrading": (0.408, 0.037)},
    "crowdbt": {"readlevel": (3.831, 0.232), "sushi": (15.169, 1.598),
                "babyface": (1.193, 0.0554), "peergrading": (0.819, 0.072)},
    "peergrader": {"readlevel": (36.580, 0.967), "sushi": (57.289, 1.347),
                   "babyface": (27.217, 0.973), "peergrading": (23.966, 0.128)},
    "coarsen-th": {"readlevel": (0.253, 0.014), "sushi": (0.706, 0.029),
                   "babyface": (0.050, 0.011), "peergrading": (0.117, 0.018)},
    "coarsen-bt": {"readlevel": (1.355, 0.102), "sushi": (9.155, 0.308),
                   "babyface": (0.748, 0.059), "peergrading": (0.488, 0.016)},
    "coarsen-pl": {"readlevel": (1.364, 0.098), "sushi": (2.350, 0.671),
                   "babyface": (0.459, 0.012), "peergrading": (0.389, 0.024)},
}

# Table "Ablation_size": seconds on Readlevel magnified ×1, ×10, ×50, ×100 (15 iterations).
SCALE_FACTORS = (1, 10, 50, 100)
SCALE = {
    "pl": (0.793, 7.445, 37.445, 72.915),
    "pl-em": (1.352, 12.909, 64.081, 124.838),
    "crowdbt": (3.831, 38.703, 193.832, 378.552),
    "peergrader": (36.580, 520.240, 3557.707, 7113.333),
    "coarsen-th": (0.253, 2.367, 12.258, 23.650),
    "coarsen-bt": (1.355, 12.793, 64.111, 124.851),
    "coarsen-pl": (1.364, 12.858, 64.176, 125.343),
}

# Hyper-parameters of the authors' released MATLAB code for Table "Accuracy" (per dataset).
# EM methods: prior (a, b), alpha, EM iterations, calibration constant C.
RELEASED: dict[str, dict[str, dict[str, Any]]] = {
    "readlevel": {
        "coarsen-pl": dict(prior=(1.0, 2.0), alpha=200.0, max_iter=15, calibration=100.0),
        "pl-em": dict(prior=(1.0, 2.0), max_iter=15, calibration=100.0),
        "coarsen-bt": dict(prior=(1.0, 2.0), alpha=200.0, max_iter=15, calibration=100.0),
        "coarsen-th": dict(alpha=4000.0),
    },
    "sushi": {
        "coarsen-pl": dict(prior=(1.0, 2.0), alpha=250.0, max_iter=30, calibration=80.0),
        "pl-em": dict(prior=(1.0, 2.0), max_iter=30, calibration=80.0),
        "coarsen-bt": dict(prior=(1.0, 2.0), alpha=70.0, max_iter=10, calibration=100.0),
        "coarsen-th": dict(alpha=500.0),
    },
    "babyface": {
        "coarsen-pl": dict(prior=(5.0, 5.0), alpha=40.0, max_iter=30, calibration=5.0),
        "pl-em": dict(prior=(4.0, 6.0), max_iter=30, calibration=5.0),
        "coarsen-bt": dict(prior=(3.0, 3.0), alpha=700.0, max_iter=30, calibration=100.0),
        "coarsen-th": dict(alpha=8.0),
    },
    "peergrading": {
        "coarsen-pl": dict(prior=(4.0, 6.0), alpha=850.0, max_iter=30, calibration=25.0),
        "pl-em": dict(prior=(4.0, 6.0), max_iter=30, calibration=25.0),
        "coarsen-bt": dict(prior=(5.0, 2.0), alpha=2000.0, max_iter=30, calibration=100.0),
        "coarsen-th": dict(alpha=950.0),
    },
}
