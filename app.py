"""CoarsenRank dashboard: ``streamlit run app.py``."""

from ui.shell import run_app

run_app()
