"""A session's own data as a file: RDF (Turtle, TriG, N-Quads, JSON-LD) or TrustGraph wire JSON.

What is written: ``session_quads`` (every step and sub-entity, the edge selections with the
labels and extraction chains their edges need, and the sub-sessions unless left out), in a
stable order (graph, then reading order, then predicate and object) so the same session gives
the same bytes.

Quoted triples:
- Turtle, TriG and N-Quads carry them as RDF 1.2 triple terms ``<<( s p o )>>`` (pyoxigraph's
  serializers). Turtle has no graphs: the quads are written as triples, graphs merged, which our
  reader does not need (it finds sessions by types and shapes).
- JSON-LD 1.1 has no triple terms (pyoxigraph refuses to write them). Each one is written as an
  ``rdf:JSON`` literal holding TrustGraph's wire form ``{"t":"t","tr":{...}}``, the spelling our
  loader turns back into the triple term on ``tg:edge`` and ``tg:contains`` (the only predicates
  that carry them in TrustGraph traces); elsewhere a warning says the literal stays a literal.
- Wire JSON is a list of ``{"s","p","o","g"?}`` triples with ``trace_explorer.read.wire`` terms.

Document texts (thoughts, observations, answers) live in TrustGraph's document store, not in the
triples. An export keeps them in a sidecar ``<name>.documents.json`` next to the data file
(``{document IRI: text}``, only the texts this session's triples point at), the content format
our loader reads; load both files to get the same session back.

The session's reviews (``trace_explorer.reviews``), when given, go into a second sidecar
``<name>.reviews.jsonld``: W3C Web Annotations, never among the session's triples (a folder of
trace files leaves that file out: ``read.formats.REVIEWS_SUFFIX``); ``trace-explorer review
import`` reads it back.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyoxigraph as ox

from ..model.session import Session
from ..model.vocabulary import DC, PROV, QUOTED_TRIPLE_PREDICATES, RDF, RDFS, TG, XSD
from ..read.collection import TraceStore
from ..read.formats import REVIEWS_SUFFIX
from ..read.wire import encode_term
from ..reviews import Review
from ..reviews.jsonld import dumps as reviews_jsonld
from .quads import session_quads, session_subjects

RDF_EXPORT_FORMATS: dict[str, ox.RdfFormat] = {
    ".ttl": ox.RdfFormat.TURTLE,
    ".trig": ox.RdfFormat.TRIG,
    ".nq": ox.RdfFormat.N_QUADS,
    ".jsonld": ox.RdfFormat.JSON_LD,
}
WIRE_SUFFIX = ".json"
DATA_SUFFIXES = tuple(RDF_EXPORT_FORMATS) + (WIRE_SUFFIX,)
WIRE_JSON = "TrustGraph wire JSON"
DOCUMENTS_SUFFIX = ".documents.json"
RDF_JSON = RDF + "JSON"
PREFIXES = {"rdf": RDF, "rdfs": RDFS, "prov": PROV, "tg": TG, "dc": DC, "xsd": XSD}


@dataclass
class DataExport:
    """One session's data in one format.

    ``data``: the file's bytes (UTF-8 text); ``format``: a human name ("TriG", "TrustGraph wire
    JSON", ...); ``quads``: how many quads were written; ``documents``: document IRI -> text for
    the sidecar (empty when the session points at no loaded text); ``warnings``: what the format
    could not carry as is, in words; ``reviews``: the session's reviews, for their sidecar
    (``reviews_path``).
    """

    data: bytes
    format: str
    quads: int
    documents: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    reviews: list[Review] = field(default_factory=list)


def export_quads(collection: TraceStore, session: Session, sessions: Mapping[str, Session],
                 include_children: bool = True) -> list[ox.Quad]:
    """``session_quads`` in a stable order: default graph first, then named graphs by name; in
    each graph the subjects in reading order (the session's own entities, then sub-sessions',
    then edge context), each subject's quads by predicate and object."""
    quads = session_quads(collection, session, sessions, include_children)
    rank = {key: i for i, key in enumerate(session_subjects(session, sessions, include_children))}
    for quad in quads:
        rank.setdefault(_key(quad.subject), len(rank))

    def order(quad: ox.Quad):
        graph = quad.graph_name
        return (not isinstance(graph, ox.DefaultGraph), str(graph), rank[_key(quad.subject)],
                quad.predicate.value, str(quad.object))

    return sorted(quads, key=order)


def referenced_documents(quads: Sequence[ox.Quad], documents: Mapping[str, str]) -> dict[str, str]:
    """The texts of ``documents`` (IRI -> text) that ``quads`` name as subject or object, by IRI."""
    names = set()
    for quad in quads:
        for term in (quad.subject, quad.object):
            if isinstance(term, ox.NamedNode):
                names.add(term.value)
    return {iri: documents[iri] for iri in sorted(names) if iri in documents}


def serialize_rdf(quads: Sequence[ox.Quad], fmt: ox.RdfFormat) -> tuple[bytes, list[str]]:
    """``quads`` in ``fmt`` (Turtle, TriG, N-Quads or JSON-LD); returns ``(bytes, warnings)``.

    Turtle gets the triples (graphs merged); JSON-LD gets triple terms as ``rdf:JSON`` wire
    literals (see the module docstring). Raises ValueError for another format or a quad
    pyoxigraph cannot write (a triple term as subject in JSON-LD).
    """
    warnings: list[str] = []
    if fmt == ox.RdfFormat.TURTLE:
        triples = list(dict.fromkeys(ox.Triple(q.subject, q.predicate, q.object) for q in quads))
        return ox.serialize(triples, format=fmt, prefixes=PREFIXES), warnings
    if fmt == ox.RdfFormat.JSON_LD:
        quads, warnings = _json_ld_safe(quads)
        return ox.serialize(quads, format=fmt), warnings
    if fmt == ox.RdfFormat.TRIG:
        return ox.serialize(quads, format=fmt, prefixes=PREFIXES), warnings
    if fmt == ox.RdfFormat.N_QUADS:
        return ox.serialize(quads, format=fmt), warnings
    raise ValueError(f"cannot export RDF as {fmt.name}; use one of {', '.join(DATA_SUFFIXES)}")


def wire_json(quads: Sequence[ox.Quad]) -> bytes:
    """``quads`` as TrustGraph wire JSON: a list of ``{"s","p","o"}`` objects with ``"g"`` (the
    graph IRI) unless the quad is in the default graph; UTF-8, one triple per line."""
    items = []
    for quad in quads:
        item = {"s": encode_term(quad.subject), "p": encode_term(quad.predicate), "o": encode_term(quad.object)}
        if isinstance(quad.graph_name, ox.NamedNode):
            item["g"] = quad.graph_name.value
        items.append(json.dumps(item, ensure_ascii=False, sort_keys=True))
    return ("[\n" + ",\n".join(items) + "\n]\n").encode("utf-8")


def export_session_data(collection: TraceStore, session: Session, sessions: Mapping[str, Session],
                        suffix: str, include_children: bool = True, reviews: Sequence[Review] = ()) -> DataExport:
    """The session's data in the format ``suffix`` names (one of ``DATA_SUFFIXES``, e.g.
    ".trig"), with the document texts it points at and its ``reviews``. ``sessions`` maps IRI ->
    Session (for the sub-sessions). Raises ValueError for an unknown suffix."""
    suffix = suffix.lower()
    quads = export_quads(collection, session, sessions, include_children)
    documents = referenced_documents(quads, collection.documents)
    if suffix == WIRE_SUFFIX:
        return DataExport(wire_json(quads), WIRE_JSON, len(quads), documents, reviews=list(reviews))
    if suffix not in RDF_EXPORT_FORMATS:
        raise ValueError(f"unknown data format {suffix!r}: use one of {', '.join(DATA_SUFFIXES)}")
    fmt = RDF_EXPORT_FORMATS[suffix]
    data, warnings = serialize_rdf(quads, fmt)
    return DataExport(data, fmt.name, len(quads), documents, warnings, list(reviews))


def documents_json(documents: Mapping[str, str]) -> bytes:
    """A content file ``{document IRI: text}`` (sorted keys, UTF-8) that our loader reads."""
    return (json.dumps(dict(documents), ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode("utf-8")


def reviews_path(path: str | Path) -> Path:
    """Where the reviews of the data file ``path`` go: ``out.trig`` -> ``out.reviews.jsonld``."""
    path = Path(path)
    return path.with_name(path.stem + REVIEWS_SUFFIX)


def documents_path(path: str | Path) -> Path:
    """Where the sidecar of the data file ``path`` goes: ``out.trig`` -> ``out.documents.json``."""
    path = Path(path)
    return path.with_name(path.stem + DOCUMENTS_SUFFIX)


def write_session_data(path: str | Path, collection: TraceStore, session: Session,
                       sessions: Mapping[str, Session], include_children: bool = True,
                       reviews: Sequence[Review] = ()) -> tuple[list[Path], DataExport]:
    """Write the session's data to ``path`` (format from its suffix) and, when it points at
    loaded texts, the sidecar ``documents_path(path)``; with ``reviews``, those in
    ``reviews_path(path)``. Returns ``(paths written, export)``.

    Raises ValueError for an unknown suffix or a name ending in ``.documents.json`` (our loader
    would read it as content); OSError when a file cannot be written.
    """
    path = Path(path)
    if path.name.lower().endswith(DOCUMENTS_SUFFIX):
        raise ValueError(f"{path}: a data file cannot end in {DOCUMENTS_SUFFIX} (that names a content file)")
    export = export_session_data(collection, session, sessions, path.suffix, include_children, reviews)
    path.write_bytes(export.data)
    written = [path]
    if export.documents:
        sidecar = documents_path(path)
        sidecar.write_bytes(documents_json(export.documents))
        written.append(sidecar)
    if export.reviews:
        sidecar = reviews_path(path)
        sidecar.write_text(reviews_jsonld(export.reviews), encoding="utf-8")
        written.append(sidecar)
    return written, export


def data_archive(name: str, export: DataExport) -> bytes:
    """A ZIP holding the data file ``name`` (e.g. "session.trig") and, when there are texts, its
    sidecar ``documents_path(name)``, and when there are reviews, ``reviews_path(name)``: one
    download for the app. Entries carry a fixed date, so
    the same export gives the same bytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for entry, data in [(Path(name).name, export.data)] + (
                [(documents_path(Path(name).name).name, documents_json(export.documents))] if export.documents else []) + (
                [(reviews_path(Path(name).name).name, reviews_jsonld(export.reviews).encode("utf-8"))]
                if export.reviews else []):
            info = zipfile.ZipInfo(entry, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return buffer.getvalue()


def _key(term) -> str:
    return "_:" + term.value if isinstance(term, ox.BlankNode) else term.value if isinstance(term, ox.NamedNode) else str(term)


def _json_ld_safe(quads: Sequence[ox.Quad]) -> tuple[list[ox.Quad], list[str]]:
    out, odd = [], 0
    for quad in quads:
        if isinstance(quad.subject, ox.Triple):
            raise ValueError(f"JSON-LD cannot carry a triple term as subject: {quad}")
        obj = quad.object
        if isinstance(obj, ox.Triple):
            text = json.dumps(encode_term(obj), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
            obj = ox.Literal(text, datatype=ox.NamedNode(RDF_JSON))
            if quad.predicate.value not in QUOTED_TRIPLE_PREDICATES:
                odd += 1
        out.append(ox.Quad(quad.subject, quad.predicate, obj, quad.graph_name))
    warnings = []
    if odd:
        warnings.append(f"{odd} quoted triple(s) under predicates other than tg:edge/tg:contains/tg:reifies "
                        "are written as rdf:JSON literals; a reader turns them back only on those three")
    return out, warnings
