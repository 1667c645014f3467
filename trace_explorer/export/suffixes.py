"""The file suffixes the exports write, by what they hold, for whoever names a file before the
export's own module is needed (the command line checks ``--image`` and ``--data`` paths as it
reads its arguments, before Graphviz or the ``prov`` package is loaded)."""

from __future__ import annotations

IMAGE_FORMATS = {".svg": "svg", ".png": "png", ".pdf": "pdf"}  # suffix -> Graphviz / vl-convert format
PROV_SUFFIXES = {".provn": "PROV-N", ".provjson": "PROV-JSON"}  # suffix -> PROV-DM serialisation
