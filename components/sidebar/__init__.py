"""The sidebar: where a visitor's traces come from (the demo, uploads, the operator's stores,
SPARQL endpoints, a TrustGraph gateway, configured sources) and how they are parsed and kept."""
