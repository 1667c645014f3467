"""TrustGraph's API gateway as a source: its REST client, listing and reading sessions
(SPARQL or triple patterns), extraction lineage, and sync into a local store."""
