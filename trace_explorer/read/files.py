"""Read one trace or content file into quads or document texts, all or nothing.

The format comes from the file name (``formats``); a ``.json`` file that turns out to hold
JSON-LD or a content mapping is read as such. Limits (``limits``) are checked before anything is
parsed. Every refusal is a TraceLoadError reading ``file:line:column: expected ...; ...``: empty
files, binary data, text that is not UTF-8 and cut-short files each get words of their own
(``diagnosis``).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator

from .diagnosis import clip
from .errors import TraceLoadError
from .formats import DOCUMENTS_JSON, WIRE_JSON, format_for_name
from .json_files import read_json_file
from .json_stream import MAX_JSON_VALUES
from .limits import MAX_EXPANDED_VARIABLE, NO_LIMIT, file_too_big, format_size, max_expanded_bytes, max_file_bytes
from .loaded import LoadedFile
from .prescan import check_before_parsing, scanner_for
from .rdf import read_rdf
from . import rdf_stream
from .rdf_stream import LINE_FORMATS, StreamedFile, open_streamed
from .streams import DecompressionError, OverLimit, Progress, opener


def read_trace_file(
    name: str, data: bytes | None = None, *, max_bytes: int | None = None,
    progress: Progress | None = None, file_limit: int | None = None,
) -> LoadedFile:
    """Read the file ``name`` (or its bytes ``data``, e.g. an upload) into a LoadedFile.

    ``max_bytes`` caps the text parsed, after decompression (default: ``max_expanded_bytes()``,
    from the environment); ``file_limit`` the file as given (default: ``max_file_bytes()``).
    ``progress(n)`` is called as the parser consumes each further ``n`` bytes (of the
    decompressed text), for progress bars. RDF formats are streamed into the parser (a ``.gz``
    decompressed on the way), so memory follows the quads, not the file; JSON is streamed
    too, within caps on depth and values (``json_stream``). What no trace needs is refused
    before parsing (``prescan``: deep nesting, XML entities). Blank nodes get names derived from the file's bytes, so reading the same
    file twice gives the same quads. Raises TraceLoadError (with line and column where the
    parser gives them) when the file cannot be read in full, and before opening a path that is
    no regular file (``check_regular_file``); nothing is returned then.
    """
    if data is None:
        check_regular_file(name)
    fmt = format_for_name(name)
    if max_bytes is None:
        max_bytes = max_expanded_bytes()
    if file_limit is None:
        file_limit = max_file_bytes()
    try:
        given = len(data) if data is not None else os.path.getsize(name)
    except OSError as error:
        raise TraceLoadError(name, "a readable file", found=f"the system says: {error.strerror or error}") from None
    if given > file_limit:
        raise file_too_big(name, given, file_limit)
    gz = name.lower().endswith(".gz")
    if not gz and given > max_bytes:
        raise TraceLoadError(name, f"at most {format_size(max_bytes)} of text "
                                   f"(the limit set by {MAX_EXPANDED_VARIABLE})",
                             found=f"this file is {format_size(given)}")
    read = opener(name, data)
    with worded_errors(name, given, max_bytes):
        if fmt in (DOCUMENTS_JSON, WIRE_JSON):
            # a local file of its owner's (no byte limit) has no cap on its values either: a
            # content file of a million texts is a user's own, and held whole as it is read
            return read_json_file(name, fmt, read, max_bytes, progress, gz and given > 0,
                                  max_values=None if max_bytes >= NO_LIMIT else MAX_JSON_VALUES)
        check_before_parsing(name, read, fmt, max_bytes)
        return read_rdf(name, read, fmt, progress, max_bytes=max_bytes, decompressed=gz and given > 0)


_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"))


def check_regular_file(name: str) -> None:
    """Raise TraceLoadError unless the path ``name`` is a regular file once its links are
    followed: missing (or a link to nothing), or a folder, device (``/dev/zero`` gives bytes
    without end), named pipe or socket (reading one waits on whatever writes to it), each said.
    Asked of the path without opening it, so nothing blocks."""
    try:
        mode = os.stat(name).st_mode
    except FileNotFoundError:
        found = "it is a link to nothing" if os.path.islink(name) else "there is no such file or folder"
        raise TraceLoadError(name, "a trace file or a folder of them", found=found) from None
    except OSError as error:
        raise TraceLoadError(name, "a readable file", found=f"the system says: {error.strerror or error}") from None
    if not stat.S_ISREG(mode):
        kind = next((words for test, words in _KINDS if test(mode)), "something else")
        target = os.path.realpath(name)
        where = f" ({target})" if target != os.path.abspath(name) else ""
        raise TraceLoadError(name, "a regular file", found=f"this is {kind}{where}, not a regular file")


def check_before_opening(name: str) -> None:
    """Raise TraceLoadError for what refuses the path ``name`` without opening it: no regular
    file (``check_regular_file``), then a name whose format this reader does not know
    (``formats.format_for_name``), in the words ``read_trace_file`` refuses them with; asked
    first by a caller that draws a progress bar for the file, so that a refusal comes without one."""
    check_regular_file(name)
    format_for_name(name)


GZ_RATIO = 8  # N-Quads shrink 10 to 20 times in gzip: a .gz of STREAM_BYTES / 8 or more is streamed


def reckoned_text_bytes(name: str, given: int) -> int:
    """The bytes of text a file ``name`` of ``given`` bytes is taken to hold when choosing to
    stream it (``stream_trace_file``): a ``.gz`` ``GZ_RATIO`` times its size."""
    return given * (GZ_RATIO if name.lower().endswith(".gz") else 1)


def streams(name: str, max_bytes: int = NO_LIMIT) -> bool:
    """Whether ``stream_trace_file`` reads the file ``name`` (with a cap of ``max_bytes`` bytes
    of text) in batches, so far as its name and size tell without reading it: a person's own
    N-Quads or N-Triples file of at least ``rdf_stream.STREAM_BYTES`` (a ``.gz`` of at least
    an eighth of that: ``GZ_RATIO``). Its pass over the text may still find it is to be read
    whole (a blank node, a blank file)."""
    if format_for_name(name) not in LINE_FORMATS or not os.path.isfile(name):
        return False
    try:
        given = os.path.getsize(name)
    except OSError:
        return False
    gz = name.lower().endswith(".gz")
    return reckoned_text_bytes(name, given) >= rdf_stream.STREAM_BYTES and (gz or given <= max_bytes)


def stream_trace_file(name: str, *, max_bytes: int = NO_LIMIT, progress: Progress | None = None,
                      checked: Progress | None = None) -> StreamedFile | None:
    """A file ``name`` that ``streams``, ready to be read a batch of quads at a time
    (``rdf_stream.StreamedFile.batches``), once one pass over its text has made the checks
    ``read_trace_file`` makes before parsing (``prescan``) and taken its digest; None when it is
    to be read whole with ``read_trace_file`` (one that does not ``stream``, names blank nodes,
    is blank or missing: that call words why it fails). ``max_bytes`` caps the text (none by
    default: ``limits``); ``checked(n)`` as that pass reads each further ``n`` bytes of the file
    as given (compressed, for a ``.gz``), ``progress(n)`` as the parser then consumes each
    further ``n`` bytes of text. Raises TraceLoadError (naming the line) for what the checks
    refuse, or a file that cannot be read."""
    if not streams(name, max_bytes):
        return None  # (read whole, a file over the limit is refused with words of its own)
    fmt = format_for_name(name)
    given = os.path.getsize(name)
    gz = name.lower().endswith(".gz")
    with worded_errors(name, given, max_bytes):
        streamed = open_streamed(name, opener(name, None, checked if gz else None), fmt, progress,
                                 max_bytes=max_bytes, scanner=scanner_for(name, fmt),
                                 checked=None if gz else checked)
    if streamed is not None:
        streamed.open_bytes = opener(name, None)  # the parse's progress is in text, not in the file's bytes
        streamed.wording = lambda: worded_errors(name, given, max_bytes)
    return streamed


@contextlib.contextmanager
def worded_errors(name: str, given: int, max_bytes: int) -> Iterator[None]:
    """Turn what stops reading the file ``name`` (``given`` bytes as given) in the ``with``
    block into a TraceLoadError naming it: text past ``max_bytes`` (``streams.OverLimit``), bad
    gzip data, a read the system refuses."""
    try:
        yield
    except OverLimit:
        raise TraceLoadError(name, f"gzip content of at most {format_size(max_bytes)} when expanded "
                                   f"(the limit set by {MAX_EXPANDED_VARIABLE})",
                             found=f"this file ({format_size(given)} compressed) expands to more") from None
    except DecompressionError as error:
        raise TraceLoadError(name, "gzip data (the name ends in .gz)",
                             found=clip(f"the decompressor says: {error.cause}")) from None
    except OSError as error:
        raise TraceLoadError(name, "a readable file", found=f"the system says: {error.strerror or error}") from None
