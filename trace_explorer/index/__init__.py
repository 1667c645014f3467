"""The session index: a SQLite file beside a local store that keeps one row per session (its
summary, totals, words, insights and health) so the list, its filters, counts and search answer
without reading the store; and the catalog that answers the same on any source."""
