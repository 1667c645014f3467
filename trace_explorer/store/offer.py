"""The local stores a server offers its visitors, by name: the operator gives, the visitor picks,
and no visitor ever names a server path.

What the operator gives, in this order:

- each ``[[store]]`` of the configured sources (``configured``), by its ``name``;
- ``TRACE_EXPLORER_STORE``, the store a new visitor starts on, by its folder's name;
- each Trace Explorer store (``local_store.ours``) directly inside a folder of
  ``TRACE_EXPLORER_STORE_ROOT`` (folders separated by the OS path separator), by its folder's
  name; the first root's is kept when two roots hold the same name. A folder there that is not
  one of Trace Explorer's stores (another program's database, a folder of files) is not offered.

New stores are made only inside the first root, under a name of ``NEW_NAME`` (a single folder
name: no ``/``, no ``..``). With neither a root nor a given store, no store is offered, and a
link's ``?store=`` opens nothing.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ..sources.configured import SourcesConfig
from .local_store import ours

STORE_VARIABLE, ROOT_VARIABLE = "TRACE_EXPLORER_STORE", "TRACE_EXPLORER_STORE_ROOT"
NEW_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
MAX_LISTED = 1000  # the most folders of one root looked at: a root of many folders costs one listing


@dataclass(frozen=True)
class OfferedStore:
    """One store a visitor may pick: ``name`` (what the page and the address show), ``path``
    (resolved; the server's only), ``given``: the operator named it (a configured store or
    ``TRACE_EXPLORER_STORE``), so it is made when it first opens if missing or empty."""

    name: str
    path: Path
    given: bool = False


@dataclass(frozen=True)
class StoreOffer:
    """The stores offered (``given``, then those found in ``roots``, resolved); ``start``: the
    name of ``TRACE_EXPLORER_STORE``'s, where a new visitor starts, or None."""

    given: tuple[OfferedStore, ...] = ()
    roots: tuple[Path, ...] = ()
    start: str | None = None

    @classmethod
    def from_settings(cls, config: SourcesConfig, environ: Mapping[str, str] | None = None) -> StoreOffer:
        """The offer of the configured sources ``config`` and of ``TRACE_EXPLORER_STORE`` and
        ``TRACE_EXPLORER_STORE_ROOT`` in ``environ`` (default ``os.environ``)."""
        environ = environ if environ is not None else os.environ
        given = [OfferedStore(s.name, _resolved(s.path), True) for s in config.of_kind("store")]
        deployment = environ.get(STORE_VARIABLE, "").strip()
        start = None
        if deployment:
            path = _resolved(deployment)
            start = next((s.name for s in given if s.path == path), None)
            if start is None and path.name not in {s.name for s in given}:
                given.append(OfferedStore(path.name, path, True))
                start = path.name
        roots = tuple(dict.fromkeys(_resolved(r) for r in environ.get(ROOT_VARIABLE, "").split(os.pathsep) if r.strip()))
        return cls(tuple(given), roots, start)

    @property
    def enabled(self) -> bool:
        """Whether any store is offered, or may be made (a root is set)."""
        return bool(self.given or self.roots)

    def stores(self) -> list[OfferedStore]:
        """Every store offered, given ones first, then each root's in name order; names unique
        (the first kept)."""
        found, names = list(self.given), {s.name for s in self.given}
        for root in self.roots:
            try:
                with os.scandir(root) as entries:
                    folders = sorted(e.name for _, e in zip(range(MAX_LISTED), entries) if e.is_dir(follow_symlinks=False))
            except OSError:
                continue
            for name in folders:
                if name not in names and ours(root / name):
                    found.append(OfferedStore(name, root / name))
                    names.add(name)
        return found

    def named(self, name: str) -> OfferedStore | None:
        """The store offered as ``name``, or None (for any name that is not one: a path, a
        folder that is not a store, one that is gone)."""
        return next((s for s in self.stores() if s.name == name), None)

    def new_store(self, name: str) -> OfferedStore | None:
        """Where a new store called ``name`` would be made: the first root's folder ``name``,
        when ``name`` is a ``NEW_NAME``, no store is offered under it, and that folder is
        missing or empty; else None."""
        if not self.roots or not NEW_NAME.fullmatch(name) or self.named(name) is not None:
            return None
        folder = self.roots[0] / name
        try:
            if folder.is_symlink() or (folder.exists() and (not folder.is_dir() or any(folder.iterdir()))):
                return None
        except OSError:
            return None
        return OfferedStore(name, folder)


def _resolved(path: str) -> Path:
    return Path(path).expanduser().resolve()
