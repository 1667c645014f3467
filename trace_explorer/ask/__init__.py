"""Ask and watch: a question sent to a TrustGraph deployment through its gateway's websocket with
TrustGraph's own client, and the session built from the ``explain`` events as they arrive."""
