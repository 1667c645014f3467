"""A session (or the session list) written out: one module per output."""
