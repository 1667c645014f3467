"""The trace model (TRACE-MODEL.md): TrustGraph's vocabulary, sessions and their steps, and the
reader that turns quads into sessions. It imports nothing else of the package."""
