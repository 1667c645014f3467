"""Uploaded files kept on the server, by the SHA-256 digest of their content.

A set of uploaded files (one upload batch, or everything a person uploaded so far) is kept as
its files' bytes, each under its own digest, and a small manifest naming them, under the digest
of that manifest: the set's digest. The app puts that digest in the page's address
(``?files=<digest>``), so a reload, a new tab or a shared link opens the same files. Nothing
lists the sets: the digest is the only way in, as with an unlisted paste link.

The folder has a total size cap, a quota for each owner (a signed-in user, or a browser
session: the app gives an opaque id) and an age limit: a set not used (uploaded or opened) for
longer than the age limit is removed; an owner's sets past their quota go, used longest ago
first; and while the folder is over its cap, the sets of the owner who is putting one go first
(used longest ago first), and only then everyone's, used longest ago first. One visitor's
uploads thus never push out another's while they fit in the visitor's quota, where a shared
cap alone let four uploads make another visitor's link "gone". Layout::

    ROOT/files/<sha256>         the bytes of one file
    ROOT/sets/<sha256>.json     {"files": [{"name": ..., "digest": ..., "size": ...}, ...],
                                 "owner": ...}

Only a digest of exactly 64 lower-case hex digits ever becomes a path; file names are data in
the manifest, never paths. Writes go to a temporary file renamed into place, and a lock file
(``fcntl.flock`` where the OS has it) keeps several server processes sharing a folder from
removing what another is writing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX: one process per folder
    fcntl = None

DIGEST = re.compile(r"[0-9a-f]{64}")
DAY_S = 86_400
PRUNE_EVERY_S = 60.0  # opening a set prunes the folder at most this often (putting one always does)


class InvalidDigest(ValueError):
    """A value that is not a digest (64 lower-case hex digits); it never reaches the filesystem."""


class UploadsGone(LookupError):
    """The set a digest names is not (or no longer) kept: expired, pushed out by the size cap,
    or never uploaded here."""

    def __init__(self, digest: str):
        super().__init__(digest)
        self.digest = digest


class UploadsTooLarge(ValueError):
    """A set bigger than the whole cache: it cannot be kept."""


def check_digest(value: str) -> str:
    """``value`` when it is a SHA-256 hex digest (64 lower-case hex digits); else InvalidDigest."""
    if not isinstance(value, str) or not DIGEST.fullmatch(value):
        raise InvalidDigest(f"{str(value)[:80]!r} is not a file set's digest (64 hex digits)")
    return value


def set_digest(entries: Sequence[tuple[str, str]]) -> str:
    """The digest of a set of files given as (name, content digest) pairs, in any order."""
    canonical = json.dumps(sorted([list(e) for e in entries]), separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


@dataclass
class UploadCache:
    """The folder ``root`` holding uploaded file sets: at most ``max_bytes`` in all (files and
    manifests), at most ``max_owner_bytes`` of one owner's (None: ``max_bytes``), each set kept
    until it has gone unused for ``max_age_s`` seconds. ``clock`` gives the time (seconds since
    the epoch), for the tests."""

    root: Path
    max_bytes: int
    max_age_s: float
    clock: Callable[[], float] = time.time
    max_owner_bytes: int | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _pruned_at: float = field(default=float("-inf"), repr=False)

    def put(self, files: Sequence[tuple[str, bytes]], owner: str = "") -> str:
        """Keep ``files`` ((name, bytes) pairs) as one set of ``owner`` (an opaque id: "" for
        nobody's); return the set's digest (the same files give the same digest, whoever puts
        them; the first to put them owns them: a link opened by another is not theirs). Keeping a
        set again counts as a use. Then removes what the age limit, the owner's quota and the size
        cap say must go, the owner's own sets first. Raises UploadsTooLarge when the set alone is
        over the quota or the cap, OSError when the folder cannot be written."""
        files = sorted(files, key=lambda f: (f[0], hashlib.sha256(f[1]).hexdigest()))  # one order: one manifest
        entries = [(name, hashlib.sha256(data).hexdigest(), len(data)) for name, data in files]
        manifest = json.dumps({"files": [{"name": n, "digest": d, "size": s} for n, d, s in entries], "owner": owner},
                              ensure_ascii=True).encode("ascii")
        unique = {d: s for _, d, s in entries}
        total = sum(unique.values()) + len(manifest)
        if total > self.quota:
            raise UploadsTooLarge(f"{total:,} bytes of files is more than this server keeps "
                                  + (f"for one person ({self.quota:,} bytes)" if self.quota < self.max_bytes
                                     else f"({self.max_bytes:,} bytes in all)"))
        digest = set_digest([(n, d) for n, d, _ in entries])
        with self._locked():
            for (name, data), (_, file_digest, _) in zip(files, entries):
                path = self._file_path(file_digest)
                if path.exists():
                    self._touch(path)
                else:
                    self._write(path, data)
            if self._readable(digest):
                self._touch(self._set_path(digest))  # its first owner keeps it: opening a link takes nothing
            else:
                self._write(self._set_path(digest), manifest)
            self._prune(keep=digest, owner=owner)
        return digest

    def _readable(self, digest: str) -> bool:
        """Whether the set ``digest`` has a manifest that reads."""
        try:
            return isinstance(json.loads(self._set_path(digest).read_bytes())["files"], list)
        except (OSError, ValueError, KeyError, TypeError):
            return False

    @property
    def quota(self) -> int:
        """The most one owner's sets keep, in bytes: ``max_owner_bytes``, never over the cap."""
        return min(self.max_bytes, self.max_owner_bytes or self.max_bytes)

    def open(self, digest: str) -> list[tuple[str, bytes]]:
        """The files of the set ``digest`` as (name, bytes) pairs, in upload order; opening
        counts as a use. Raises InvalidDigest (before touching the filesystem) for a value that
        is not a digest, UploadsGone when the set is not kept."""
        check_digest(digest)
        with self._locked():
            if self.clock() - self._pruned_at > PRUNE_EVERY_S:  # a scan of the folder, not on every open
                self._prune()
            try:
                if self.clock() - self._set_path(digest).stat().st_mtime > self.max_age_s:
                    raise UploadsGone(digest)  # past its age, whenever the folder was last pruned
                manifest = json.loads(self._set_path(digest).read_bytes())
                entries = [(str(f["name"]), check_digest(f["digest"])) for f in manifest["files"]]
                out = [(name, self._file_path(file_digest).read_bytes()) for name, file_digest in entries]
            except (OSError, ValueError, KeyError, TypeError, UploadsGone):
                raise UploadsGone(digest) from None
            self._touch(self._set_path(digest))
            for _, file_digest in entries:
                self._touch(self._file_path(file_digest))
        return out

    def prune(self) -> None:
        """Remove the sets over the age limit, then the least recently used ones while the
        folder is over its cap, then the files no kept set names."""
        with self._locked():
            self._prune()

    # -- the folder ----------------------------------------------------------------------------
    def _set_path(self, digest: str) -> Path:
        return self.root / "sets" / f"{check_digest(digest)}.json"

    def _file_path(self, digest: str) -> Path:
        return self.root / "files" / check_digest(digest)

    def _prune(self, keep: str | None = None, owner: str | None = None) -> None:
        """Remove sets past their age, then each owner's past their quota (used longest ago
        first), then while over the cap ``owner``'s own (used longest ago first) and then
        anyone's; then the files no kept set names. ``keep`` (the set just put) stays."""
        now = self._pruned_at = self.clock()
        sets = []
        for path in (self.root / "sets").glob("*.json"):
            if not DIGEST.fullmatch(path.stem):
                continue
            try:
                used, manifest = path.stat().st_mtime, json.loads(path.read_bytes())
                names = {check_digest(f["digest"]): int(f["size"]) for f in manifest["files"]}
                by = str(manifest.get("owner") or "")
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                names, used, by = {}, 0.0, ""  # unreadable: goes first
            if path.stem == keep or (names and now - used <= self.max_age_s):
                sets.append(_KeptSet(path, path.stem == keep, used, by, names))
            else:
                _remove(path)
        sets.sort(key=lambda k: (k.is_kept, k.used), reverse=True)  # the newest first
        quota = self.quota
        for by in {k.owner for k in sets}:
            mine: dict[str, int] = {}
            for kept in (k for k in sets if k.owner == by):
                new = {d: n for d, n in kept.names.items() if d not in mine}
                if not kept.is_kept and sum(mine.values()) + sum(new.values()) + kept.size > quota:
                    kept.removed = True
                    continue
                mine.update(new)
                mine[kept.path.name] = kept.size
        kept_sets = [k for k in sets if not k.removed]
        order = sorted((k for k in kept_sets if not k.is_kept), key=lambda k: (k.owner != owner, k.used), reverse=True)
        while order and _total(kept_sets) > self.max_bytes:
            order.pop().removed = True  # the owner's own first, used longest ago first
            kept_sets = [k for k in kept_sets if not k.removed]
        kept_files: set[str] = set()
        for kept in sets:
            if kept.removed:
                _remove(kept.path)
            else:
                kept_files.update(kept.names)
        for path in (self.root / "files").glob("*"):
            if path.name not in kept_files:
                _remove(path)

    def _write(self, path: Path, data: bytes) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".part-")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except BaseException:
            _remove(Path(temporary))
            raise
        self._touch(path)

    def _touch(self, path: Path) -> None:
        now = self.clock()
        with contextlib.suppress(OSError):
            os.utime(path, (now, now))

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        self.root.mkdir(parents=True, exist_ok=True)
        with self._lock, open(self.root / ".lock", "a+b") as lock:
            if fcntl is not None:
                fcntl.flock(lock, fcntl.LOCK_EX)
            yield


@dataclass
class _KeptSet:
    """A set's manifest as pruning reads it: ``names`` its files' digests and sizes."""

    path: Path
    is_kept: bool
    used: float
    owner: str
    names: dict[str, int]
    removed: bool = False

    @property
    def size(self) -> int:
        """The manifest's own bytes."""
        return _size(self.path)


def _total(sets: list[_KeptSet]) -> int:
    """Bytes of ``sets``: each file once, whatever sets name it, and each manifest."""
    files: dict[str, int] = {}
    for kept in sets:
        files.update(kept.names)
    return sum(files.values()) + sum(k.size for k in sets)


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()


FOLDER_VARIABLE = "TRACE_EXPLORER_UPLOAD_CACHE"
CAP_VARIABLE = "TRACE_EXPLORER_UPLOAD_CACHE_MB"
AGE_VARIABLE = "TRACE_EXPLORER_UPLOAD_CACHE_DAYS"
QUOTA_VARIABLE = "TRACE_EXPLORER_UPLOAD_QUOTA_MB"
DEFAULT_CAP_MB = 2048
DEFAULT_AGE_DAYS = 7


def default_folder(environ: dict[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/trace-explorer/uploads``, else ``~/.cache/trace-explorer/uploads``."""
    environ = environ if environ is not None else os.environ
    base = environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "trace-explorer" / "uploads"


def cache_from_settings(settings: dict | None = None, environ: dict[str, str] | None = None) -> UploadCache:
    """The upload cache a deployment configures: the folder, cap (MiB), quota of one owner (MiB)
    and age limit (days) from ``TRACE_EXPLORER_UPLOAD_CACHE``, ``TRACE_EXPLORER_UPLOAD_CACHE_MB``,
    ``TRACE_EXPLORER_UPLOAD_QUOTA_MB`` and ``TRACE_EXPLORER_UPLOAD_CACHE_DAYS``, else from
    ``settings`` (the config file's ``[uploads]`` table: ``folder``, ``max_mb``, ``quota_mb``,
    ``max_age_days``), else ``default_folder()``, 2048 MiB, a quarter of the cap and 7 days. A
    value that is not a positive number falls back to the default."""
    environ = environ if environ is not None else os.environ
    settings = settings or {}
    folder = environ.get(FOLDER_VARIABLE, "").strip() or str(settings.get("folder") or "") or default_folder(environ)
    cap = _positive(environ.get(CAP_VARIABLE), settings.get("max_mb"), DEFAULT_CAP_MB)
    age = _positive(environ.get(AGE_VARIABLE), settings.get("max_age_days"), DEFAULT_AGE_DAYS)
    quota = _positive(environ.get(QUOTA_VARIABLE), settings.get("quota_mb"), cap / 4)
    return UploadCache(Path(folder).expanduser(), int(cap * 1024 * 1024), age * DAY_S,
                       max_owner_bytes=int(quota * 1024 * 1024))


def _positive(*values) -> float:
    for value in values:
        try:
            number = float(str(value).strip())
        except (TypeError, ValueError):
            continue
        if 0 < number < float("inf"):
            return number
    return values[-1]
