"""Where sessions come from: files read into memory, the local store and its session index,
SPARQL endpoints and the policy that admits them; and the catalog (the session list, its
filters and counts) answered on any of them."""
