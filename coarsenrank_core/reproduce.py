"""``python -m coarsenrank_core.reproduce``: the reproduction report (coarsenrank_core.paper)."""

from .paper.reproduce import *  # noqa: F403
from .paper.reproduce import main

if __name__ == "__main__":
    main()
