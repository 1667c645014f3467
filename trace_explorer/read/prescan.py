"""What no trace needs, refused before a parser sees it: triple terms nested deeper than
``MAX_TRIPLE_DEPTH``, JSON nested deeper than ``MAX_JSON_DEPTH``, and in RDF/XML a DTD with
declarations (``<!DOCTYPE … [ … ]>``, ``<!ENTITY``: entities expand without bound, the
"billion laughs") or elements nested deeper than ``MAX_XML_DEPTH``.

Each is a hazard to the parser, not to the data: pyoxigraph recurses on nested triple terms (a
100,000-deep one crashes the process), expands XML entities without counting them against any
limit, and slows quadratically on deep XML. TrustGraph's traces nest a triple term once (an
EdgeSelection's ``tg:edge``) and write no DTD.

The scan reads the (decompressed) text afresh, a chunk at a time, so memory stays bounded: a
piece that cannot be judged yet (a string cut by the chunk's end) is carried into the next
chunk, at most ``MAX_CARRY`` bytes of it: past that a Turtle-family file is left to the parser,
whose buffer is smaller (it refuses the token itself, naming the line), and any other file is
refused (a 33 MiB XML comment must not hide the DTD after it). Strings, IRIs, comments and CDATA are skipped, so ``<<`` in a literal (a
merge conflict in a tool's output) is only text. Refusals are TraceLoadErrors naming the file
and line.
"""

from __future__ import annotations

import re
import zlib

import pyoxigraph as ox

from .errors import TraceLoadError
from .limits import format_size
from .lines import LineCounter, line_breaks
from .streams import CHUNK, Opener

MAX_TRIPLE_DEPTH = 16  # triple terms inside triple terms (TrustGraph writes 1)
MAX_JSON_DEPTH = 64  # arrays and objects inside each other (a wire triple term adds 2 a level)
MAX_XML_DEPTH = 64  # elements inside each other in RDF/XML (a trace needs under 10)
MAX_CARRY = 32 << 20  # bytes of one unjudged piece carried between chunks

# Turtle family: everything but "<<" and ">>" is skipped in one match (possessive, so the regex
# engine does the walking): plain text, escapes, long and short strings, comments, IRIs, and a
# lone < or > (N3's "<=", or a syntax error the parser reports). An IRI cut by the chunk's end
# is no lone <: it waits for the next chunk whole (read as text, its "#" would start a comment
# that hides the ">>" after it). A quote's lookahead needs the bytes after it, so a chunk is
# judged only up to the quotes it ends with (see _NestingScan).
_TURTLE_SKIP = re.compile(rb"""(?:
    [^"'\#<>\\]++
  | \\.
  | \"\"\"(?:[^"\\]++|\\.|"(?!""))*+\"\"\"
  | '''(?:[^'\\]++|\\.|'(?!''))*+'''
  | "(?!"")(?:[^"\\\r\n]++|\\.)*+"
  | '(?!'')(?:[^'\\\r\n]++|\\.)*+'
  | \#[^\r\n]*+(?=[\r\n])
  | <[^<>"{}|^`\\\x00-\x20]*+>
  | <(?=[^<])(?![^<>"{}|^`\\\x00-\x20]*+\Z)
  | >(?=[^>])
)*+""", re.X | re.S)

_RUN_ON = (b'"""', b"'''", b"\\\n", b"\\\r")  # what may carry a Turtle-family piece past a line end

_JSON_SKIP = re.compile(rb'(?:[^"\[\]{}]++|"(?:[^"\\]++|\\.)*+")*+', re.S)

# RDF/XML: text up to the next "<", then one piece of markup, told by how it starts
_XML_TEXT = re.compile(rb"[^<]*+")
_XML_MARKUP = (
    (b"<!--", re.compile(rb"<!--.*?-->", re.S)),
    (b"<![CDATA[", re.compile(rb"<!\[CDATA\[.*?\]\]>", re.S)),
    (b"<?", re.compile(rb"<\?.*?\?>", re.S)),
    (b"<!DOCTYPE", re.compile(rb"""<!DOCTYPE(?:[^>\["']++|"[^"]*+"|'[^']*+')*+[>\[]""")),
    (b"<!", None),  # any other declaration (<!ENTITY, <!ELEMENT, …)
    (b"</", re.compile(rb"</[^>]*+>")),
    (b"<", re.compile(rb"""<(?:[^>"']++|"[^"]*+"|'[^']*+')*+>""")),
)
_LONGEST_START = 9  # bytes that tell one kind of markup from another ("<![CDATA[")


def check_before_parsing(name: str, open_bytes: Opener, fmt: ox.RdfFormat | str,
                         max_bytes: int | None = None) -> None:
    """Read ``open_bytes()`` (the file's decompressed text) once and raise TraceLoadError at the
    first thing refused (see the module), naming ``name`` and the line. ``fmt``: an RdfFormat,
    or any other value for JSON. Reads at most ``max_bytes`` (the parser reads no further).
    Stops quietly at data it cannot read (bad gzip): the parser reports that."""
    scanner = scanner_for(name, fmt)
    try:
        with open_bytes() as source:
            read = 0
            while True:
                # a long piece carried grows the next read, so each byte is matched a few times at most
                chunk = source.read(max(CHUNK, len(scanner.carry)))
                read += len(chunk)
                final = not chunk or (max_bytes is not None and read >= max_bytes)
                if scanner.feed(chunk, final) or final:
                    return
    except (OSError, EOFError, zlib.error):
        return


def scanner_for(name: str, fmt: ox.RdfFormat | str) -> _Scan:
    """The scan of a file ``name`` in ``fmt`` (an RdfFormat, or any other value for JSON), for
    a pass that reads the text for more than this check (``rdf_stream.open_streamed`` takes the
    digest in the same pass): ``feed(chunk, final)`` each further chunk, in order, ``final``
    True with the last (an empty one at the end will do); it raises TraceLoadError at the first
    thing refused, and returns True once nothing more can be judged (the rest need not be fed)."""
    if fmt == ox.RdfFormat.RDF_XML:
        return _XmlScan(name)
    if fmt == ox.RdfFormat.JSON_LD or not isinstance(fmt, ox.RdfFormat):
        return _NestingScan(name, _JSON_SKIP, {b"[": 1, b"{": 1, b"]": -1, b"}": -1}, MAX_JSON_DEPTH,
                            "JSON arrays and objects", "a trace needs a handful", turtle=False)
    return _NestingScan(name, _TURTLE_SKIP, {b"<<": 1, b">>": -1}, MAX_TRIPLE_DEPTH,
                        "quoted triples and triple terms (<< >>, <<( )>>)", "a trace needs one or two",
                        turtle=True, one_line=fmt in (ox.RdfFormat.N_TRIPLES, ox.RdfFormat.N_QUADS))


class _Scan:
    """What the scanners share: the text carried between chunks, the lines passed, the error.
    ``parser_holds_less``: the parser refuses a piece longer than ``MAX_CARRY`` itself."""

    parser_holds_less = False

    def __init__(self, name: str):
        self.name = name
        self.depth = 0
        self.carry = b""
        self.lines = LineCounter()

    def _keep(self, buf: bytes, pos: int) -> bool:
        """Carry ``buf[pos:]`` into the next chunk; True when the scan ends here."""
        self.lines.add(buf[:pos])
        self.carry = buf[pos:]
        if len(self.carry) <= MAX_CARRY:
            return False
        if self.parser_holds_less:
            return True
        raise self._refused(buf, pos, f"no single tag, comment or string longer than {format_size(MAX_CARRY)}",
                            "one runs on for longer from here (refused before parsing)")

    def _refused(self, buf: bytes, pos: int, expected: str, found: str) -> TraceLoadError:
        line = self.lines.lines + line_breaks(buf, 0, pos) + 1
        return TraceLoadError(self.name, expected, line, found=found)


class _NestingScan(_Scan):
    """Depth of brackets (``steps``: token -> +1 or -1, all of one width) outside what ``skip``
    passes over. ``turtle``: the Turtle family, whose skip looks ahead past a quote (so a chunk
    is judged up to the quotes it ends with) and whose parser refuses a token over 16 MiB.
    In a Turtle-family chunk where no piece runs on past a line end (no long string, no
    backslash before a line end: ``_RUN_ON``), each line starts outside any piece, so only the
    lines holding a bracket are matched, and the text after the last of them is passed over up
    to its last line end. ``one_line``: N-Triples or N-Quads, whose grammar lets no piece run
    on past a line end (their parser refuses the line one starts on, before any line after it),
    so no chunk is searched for one."""

    def __init__(self, name: str, skip: re.Pattern, steps: dict[bytes, int], limit: int, what: str, need: str,
                 turtle: bool, one_line: bool = False):
        super().__init__(name)
        self.skip, self.steps, self.limit, self.what, self.need = skip, steps, limit, what, need
        self.width = len(next(iter(steps)))
        self.turtle = self.parser_holds_less = turtle
        self.one_line = one_line
        self._found: dict[bytes, int] = {}  # where each bracket was last found in this chunk

    def feed(self, chunk: bytes, final: bool) -> bool:
        """Judge the next chunk; True once nothing more can be judged (the rest is the parser's)."""
        buf = self.carry + chunk
        end = len(buf)
        if not final and self.turtle:
            end = len(buf.rstrip(b"\"'"))
        pos = 0
        # no piece runs on past a line end here: only the lines with a bracket need matching
        lined = self.one_line or (self.turtle and not any(piece in buf for piece in _RUN_ON))
        step_at = stop = -1
        self._found = {}
        while pos < end:
            if not lined:
                stop = end
            elif step_at < pos:  # matched from the start of the next line with a bracket to its end
                step_at = self._next_step(buf, pos, end)
                if step_at < 0:
                    line_end = _line_start(buf, pos, end)
                    if line_end > pos:  # on from the last line end
                        pos = end = line_end
                    lined = False
                    continue
                pos = _line_start(buf, pos, step_at)
                stop = _line_end(buf, step_at, end)
            pos = self.skip.match(buf, pos, stop).end()
            if pos >= stop:
                if stop >= end:
                    break
                continue
            step = self.steps.get(buf[pos:pos + self.width])
            if step is not None:
                self.depth = max(0, self.depth + step)
                if self.depth > self.limit:
                    raise self._refused(buf, pos, f"{self.what} nested at most {self.limit} deep",
                                        f"they nest deeper than {self.limit} here ({self.need}; refused before parsing)")
                pos += self.width
            elif final or self._unterminated(buf, pos, end):
                pos += 1  # a syntax error the parser reports: not ours to judge
            else:
                break  # a piece cut by the chunk's end: judged with the next chunk
        return self._keep(buf, pos)

    def _next_step(self, buf: bytes, pos: int, end: int) -> int:
        """Where the first bracket at or after ``pos`` is in ``buf[:end]``, -1 when none (each
        kind looked for again only once passed, so the chunk is searched once a kind)."""
        first = -1
        for step in self.steps:
            at = self._found.get(step, -1)
            if at < pos and at != -2:
                at = buf.find(step, pos, end)
                self._found[step] = at if at >= 0 else -2  # -2: none left
            if at >= 0 and (first < 0 or at < first):
                first = at
        return first

    def _unterminated(self, buf: bytes, pos: int, end: int) -> bool:
        """A one-line string with a line end before ``end``: it can never close."""
        quote = buf[pos:pos + 1]
        if quote not in (b'"', b"'") or buf[pos:pos + 3] == quote * 3:
            return False
        return buf.find(b"\n", pos, end) >= 0 or buf.find(b"\r", pos, end) >= 0


def _line_start(buf: bytes, start: int, end: int) -> int:
    """Where the line holding ``buf[end]`` starts, looking back no further than ``start``."""
    at = buf.rfind(b"\n", start, end) + 1
    return max(at, buf.rfind(b"\r", at, end) + 1, start)


def _line_end(buf: bytes, pos: int, end: int) -> int:
    """Where the line holding ``buf[pos]`` ends, its first line-end byte included (``end`` when
    it runs on to there)."""
    line_feed = buf.find(b"\n", pos, end)
    line_feed = end if line_feed < 0 else line_feed + 1
    carriage_return = buf.find(b"\r", pos, line_feed)
    return line_feed if carriage_return < 0 else carriage_return + 1


class _XmlScan(_Scan):
    """RDF/XML: DTD declarations refused, element depth counted."""

    def feed(self, chunk: bytes, final: bool) -> bool:
        """Judge the next chunk; True once nothing more can be judged."""
        buf = self.carry + chunk
        pos = 0
        while True:
            pos = _XML_TEXT.match(buf, pos).end()
            if pos >= len(buf):
                break
            start = buf[pos:pos + _LONGEST_START]
            if not final and len(start) < _LONGEST_START:
                break  # too little left to tell the markup: judged with the next chunk
            pattern = next(p for prefix, p in _XML_MARKUP if start.startswith(prefix))
            if pattern is None or start.startswith(b"<!DOCTYPE"):
                markup = pattern and pattern.match(buf, pos)
                if markup is None and pattern is not None and not final:
                    break
                if pattern is None or (markup is not None and markup.group().endswith(b"[")):
                    raise self._refused(buf, pos, "RDF/XML without DTD declarations",
                                        f"found {start.decode('utf-8', 'replace')!r}…: a DTD's entities "
                                        "expand without bound, so DTD declarations are refused before parsing")
            markup = pattern.match(buf, pos)
            if markup is None:
                if not final:
                    break  # cut by the chunk's end
                pos += 1
                continue
            if start.startswith(b"</"):
                self.depth = max(0, self.depth - 1)
            elif start[:2] not in (b"<!", b"<?") and not markup.group().endswith(b"/>"):
                self.depth += 1
                if self.depth > MAX_XML_DEPTH:
                    raise self._refused(buf, pos, f"XML elements nested at most {MAX_XML_DEPTH} deep",
                                        f"they nest deeper than {MAX_XML_DEPTH} here (refused before parsing)")
            pos = markup.end()
        return self._keep(buf, pos)
