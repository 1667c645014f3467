"""Where sessions come from: files read into memory, the local store, SPARQL endpoints and a
TrustGraph gateway, each read as a ``TraceSource``; the query text they share (SPARQL, search
terms, filters) and the lineage lookups they answer."""
