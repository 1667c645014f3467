"""Serving the app to people: the address it binds, sign-in and the way back after it, and the
server's memory."""
