"""The bundled demo collection: the reference corpus TrustGraph's producer library made
(every mechanism and pattern, seed and current shapes, all four quoted-triple spellings)."""

from __future__ import annotations

from pathlib import Path

DEMO_DIR = Path(__file__).with_name("demo_data")


def demo_paths() -> list[Path]:
    """The demo's trace and content files, sorted by name."""
    return sorted(p for p in DEMO_DIR.iterdir() if p.is_file())
