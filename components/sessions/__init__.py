"""The session list page's widgets: the list and its table, its filters and their values, and
the list's state in the address."""
