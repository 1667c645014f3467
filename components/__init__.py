"""Reusable Streamlit widgets of the Trace Explorer app (the pages in ``pages/`` compose them)."""
