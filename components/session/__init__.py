"""The session page's widgets: the header, the interactive workspace (timeline, graph, step
list, inspector), a step's texts, evidence, answer support and its judge, and downloads."""
