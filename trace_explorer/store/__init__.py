"""The local store: a pyoxigraph directory that ``ingest`` and ``sync`` write, with its writer's
lock and journal, the snapshots readers open, and the triples a write added."""
