"""The sidebar's figures alone (``components.sidebar.source_picker``: Sessions, Steps, Triples), at the
counts the environment names, for a browser to measure: ``TE_FIGURES="sessions=100000,top=62000,
steps=1234567,triples=7654321"``. A store of 100,000 sessions takes minutes to build; the
figures' layout depends only on the counts."""

from __future__ import annotations

import os

import streamlit as st

from components.sidebar.source_picker import _stats


class Counted:
    """What ``_stats`` reads of a collection: its counts, a label, no empty state."""

    empty_state = None
    label = "counts of a test"

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts

    def count(self, what: str) -> int:
        return self.counts[what]


with st.sidebar:
    _stats(Counted({name: int(n) for name, n in (pair.split("=") for pair in os.environ["TE_FIGURES"].split(","))}))
