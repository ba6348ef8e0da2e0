"""Streamlit helpers for the CoarsenRank dashboard: state, cached engine calls, charts, widgets."""
