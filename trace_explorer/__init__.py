"""Trace Explorer core: read TrustGraph provenance traces and turn them into sessions.

The folders follow the data, and imports run one way, from the top of this list down:

- ``cli/``: the ``trace-explorer`` command;
- ``export/``: one module per output (data, images, Markdown, page, PROV, table);
- ``analysis/``: what is computed across steps and sessions;
- ``views/``: what a person looks at: the timeline, the DAG, step labels, reports;
- ``sources/``: where sessions come from and how the list is answered;
- ``read/``: files to quads;
- ``model/``: the trace model and the reader that turns quads into sessions.

Nothing here imports Streamlit; the app (``app.py``, ``app_pages/``, ``components/``) sits on top.
"""
