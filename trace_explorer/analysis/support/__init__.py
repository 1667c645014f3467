"""Answer support: which step of a session backs each sentence of its answer, and which
sentences nothing in the trace backs (``support.session_support``)."""
