"""Reusable Streamlit widgets of the Trace Explorer app (the pages in ``app_pages/`` compose them)."""
