"""TrustGraph's API gateway as a source: its REST client, listing and reading sessions
(SPARQL or triple patterns), and extraction lineage."""
