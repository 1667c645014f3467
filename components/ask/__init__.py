"""The Ask page's widgets: a question sent to a TrustGraph gateway and its trace drawn as the
explain events arrive."""
