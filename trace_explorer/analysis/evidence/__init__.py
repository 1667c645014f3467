"""Evidence lineage: from an answer's chosen edges and chunks to the documents behind
them, and from a document to every session it fed."""
