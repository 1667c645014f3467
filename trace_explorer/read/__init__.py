"""Files to quads: every RDF format, TrustGraph's wire JSON, the four spellings of a quoted
triple, documents files, size limits, and the errors that name the file and line."""
