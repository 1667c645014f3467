"""Read one trace or content file into quads or document texts, all or nothing.

The format comes from the file name (``formats``); a ``.json`` file that turns out to hold
JSON-LD or a content mapping is read as such. Limits (``limits``) are checked before anything is
parsed. Every refusal is a TraceLoadError reading ``file:line:column: expected ...; ...``: empty
files, binary data, text that is not UTF-8 and cut-short files each get words of their own
(``diagnosis``).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import zlib

import pyoxigraph as ox

from .diagnosis import BLANK, clip, format_label
from .errors import TraceLoadError
from .formats import DOCUMENTS_JSON, WIRE_JSON, format_for_name
from .json_files import parse_json_file, read_documents, read_json
from .limits import MAX_EXPANDED_VARIABLE, file_too_big, format_size, max_expanded_bytes, max_file_bytes
from .loaded import LoadedFile
from .rdf import Progress, read_rdf, stable_blank_nodes


def read_trace_file(
    name: str, data: bytes | None = None, *, max_bytes: int | None = None,
    progress: Progress | None = None, file_limit: int | None = None,
) -> LoadedFile:
    """Read the file ``name`` (or its bytes ``data``, e.g. an upload) into a LoadedFile.

    ``max_bytes`` caps the text parsed, after decompression (default: ``max_expanded_bytes()``,
    from the environment); ``file_limit`` the file as given (default: ``max_file_bytes()``).
    ``progress(n)`` is called as the parser consumes each further ``n`` bytes (of the
    decompressed text), for progress bars. Blank nodes get names derived from the file's bytes,
    so reading the same file twice gives the same quads. Raises TraceLoadError (with line and
    column where the parser gives them) when the file cannot be read in full; nothing is
    returned then.
    """
    fmt = format_for_name(name)
    if max_bytes is None:
        max_bytes = max_expanded_bytes()
    if file_limit is None:
        file_limit = max_file_bytes()
    if data is None:
        try:
            size = os.path.getsize(name)
            if size > file_limit:
                raise file_too_big(name, size, file_limit)
            with open(name, "rb") as handle:
                data = handle.read(file_limit + 1)
        except OSError as error:
            raise TraceLoadError(name, "a readable file", found=f"the system says: {error.strerror or error}") from None
    if len(data) > file_limit:
        raise file_too_big(name, len(data), file_limit)
    given = len(data)
    if name.lower().endswith(".gz"):
        data = _gunzip(name, data, max_bytes)
    elif len(data) > max_bytes:
        raise TraceLoadError(name, f"at most {format_size(max_bytes)} of text "
                                   f"(the limit set by {MAX_EXPANDED_VARIABLE})",
                             found=f"this file is {format_size(len(data))}")
    if BLANK.fullmatch(data):
        raise TraceLoadError(name, f"{format_label(fmt)} data", found="the file is empty"
                             + (" once decompressed" if given and name.lower().endswith(".gz") else ""))
    if fmt == DOCUMENTS_JSON:
        loaded = LoadedFile(name, DOCUMENTS_JSON, len(data), documents=read_documents(name, parse_json_file(name, data)))
    elif fmt == WIRE_JSON:
        loaded = read_json(name, data)
    else:
        loaded = read_rdf(name, data, fmt, progress)
        progress = None
    if progress is not None:
        progress(len(data))
    loaded.digest = hashlib.sha256(data).hexdigest()
    if not (fmt in (ox.RdfFormat.N_QUADS, ox.RdfFormat.N_TRIPLES) and b"_:" not in data):
        # (a line format without "_:" has no blank node: the scan is skipped)
        loaded.quads = stable_blank_nodes(loaded.quads, loaded.digest[:16])
    return loaded


def _gunzip(name: str, data: bytes, max_bytes: int) -> bytes:
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as handle:
            out = handle.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as error:
        raise TraceLoadError(name, "gzip data (the name ends in .gz)",
                             found=clip(f"the decompressor says: {error}")) from None
    if len(out) > max_bytes:
        raise TraceLoadError(name, f"gzip content of at most {format_size(max_bytes)} when expanded "
                                   f"(the limit set by {MAX_EXPANDED_VARIABLE})",
                             found=f"this file ({format_size(len(data))} compressed) expands to more")
    return out


