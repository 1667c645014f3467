"""Trace Explorer core: read TrustGraph provenance traces and turn them into sessions.

Data flows one way: source files -> store -> model (sessions, steps) -> graph/layout -> view or
export. Nothing in this package imports Streamlit; the app and the CLI are thin layers over it.
"""

__version__ = "0.1.0"
