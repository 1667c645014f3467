"""Trace health: each problem found by a stable rule id, from the reader, the SHACL
shapes (``shapes/``) and code; and the rows the session index keeps of it."""
