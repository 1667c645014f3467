"""Shared fixtures: the reference corpus beside the repository and its manifest (ground truth)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trace_explorer.sessions import read_sessions
from trace_explorer.store import load_collection

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus"
MANIFEST = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
TRACE_FILES = sorted(MANIFEST)
# The content file that goes with a trace file, when the corpus has one.
CONTENT_FILES = {"collection.trig": "collection.documents.json"}
MECHANISM_NAMES = {"agent": "Agent", "graphrag": "GraphRAG", "docrag": "DocRAG"}


def corpus_paths(name: str) -> list[Path]:
    """The trace file ``name`` plus its content file, if any."""
    paths = [CORPUS / name]
    if name in CONTENT_FILES:
        paths.append(CORPUS / CONTENT_FILES[name])
    return paths


def manifest_sessions(name: str | None = None) -> list[dict]:
    """The manifest's sessions of one file (or of every file), each with its ``file``."""
    names = [name] if name else TRACE_FILES
    return [dict(s, file=n) for n in names for s in MANIFEST[n]["sessions"]]


@pytest.fixture(scope="session")
def corpus_sessions():
    """Every session of the whole corpus loaded together, by IRI."""
    collection, errors = load_collection([CORPUS])
    assert errors == []
    return {s.id: s for s in read_sessions(collection)}
