"""A session's provenance DAG: grouping and folding, the layered layout, nodes and legend,
and the vis-network data (and pyvis page) drawn from them."""
