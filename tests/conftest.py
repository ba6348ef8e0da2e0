"""Shared test fixtures: where the paper's datasets live, and small preference sets."""

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = Path(os.environ.get("COARSENRANK_DATA", ROOT.parent / "shared" / "datasets"))


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """The folder of the paper's datasets (``COARSENRANK_DATA``, default ``../shared/datasets``).

    Skips only when the folder is absent and ``CI`` is unset; on CI a missing folder fails.
    """
    if not DATA_DIR.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"COARSENRANK_DATA={DATA_DIR} does not exist on CI")
        pytest.skip(f"the paper's datasets are not at {DATA_DIR} (set COARSENRANK_DATA)")
    return DATA_DIR
