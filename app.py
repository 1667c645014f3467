"""Trace Explorer: explore TrustGraph provenance traces (W3C PROV-O) in the browser.

Run with ``streamlit run app.py``. The sidebar chooses the traces (the bundled demo until files
are uploaded, or a local store, or a SPARQL endpoint); the pages are the session list (``/``),
the session view (``/session?session=<IRI>``) and the collection's insights (``/insights``).
With sign-in configured (``.streamlit/secrets.toml``'s ``[auth]``), nothing below the first
call runs until a permitted person is signed in.
"""

from __future__ import annotations

import streamlit as st

from components.hosting.heap import freeze_new_imports
from components.navigation import app_pages, mark_entry_run
from components.hosting.serving import guard
from components.hosting.sign_in import require_sign_in
from components.sidebar.source_picker import collection_sidebar
from components.stale_reruns import guard_timer_reruns

guard_timer_reruns()  # a fragment timer's tick never takes a person back to a page they left
require_sign_in()  # before any page, link, upload or download handler: stops the run for anyone else
page = st.navigation(app_pages())
# after st.navigation, so the tab shows this title and icon (an emoji: no icon font download)
st.set_page_config(page_title="Trace Explorer", page_icon="🧭", layout="wide")
guard()  # without sign-in, visitors from this machine only (docs/sources-and-hosting.md, "Hosting")
collection_sidebar()
mark_entry_run()
page.run()
freeze_new_imports()  # the first runs' imports: out of the full collection after each run
