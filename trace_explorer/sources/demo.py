"""The bundled demo collection: the reference corpus TrustGraph's producer library made
(every mechanism and pattern, seed and current shapes, all four quoted-triple spellings,
extraction provenance), with the texts its librarian held for every ``tg:document``, and its
manifest (ground truth for the tests, not a trace file); and in ``services/`` the corpus
TrustGraph 2.11.1's own services made (``scripts/trustgraph_services``): their explain
triples, the collection's extraction provenance (``urn:graph:source``) and the librarian's
texts, with a manifest of its own.
"""

from __future__ import annotations

from pathlib import Path

from ..read.collection import expand_paths

DEMO_DIR = Path(__file__).resolve().parents[1] / "demo_data"
MANIFEST = DEMO_DIR / "manifest.json"
SERVICES_DIR = DEMO_DIR / "services"
SERVICES_MANIFEST = SERVICES_DIR / "manifest.json"


def demo_paths() -> list[Path]:
    """The demo's trace and content files (``*.documents.json``): the reference corpus's, sorted
    by name, then the service corpus's; manifests and READMEs are left out. Folders are not
    recursed into, so ``services/`` is named on its own and read once."""
    return expand_paths([DEMO_DIR, SERVICES_DIR])
