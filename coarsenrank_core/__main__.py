"""Entry point for ``python -m coarsenrank_core``."""

from .cli import main

raise SystemExit(main())
