"""What in an HTML page would make a browser fetch something from the network, found by parsing
the page (``html.parser``) and looking at its elements, not at its text: trace text in the page
(escaped in an element's text or inside a script's JSON) is not an element and loads nothing,
however much it looks like ``<link href=http://…>``.

Looked at: every attribute that names a resource to fetch (``src``, ``href``, ``srcset``,
``data``, ``action``, ``formaction``, ``poster``, ``background``, ``xlink:href``, ``ping``,
``manifest``), ``url(…)`` and ``@import`` in ``style`` attributes and ``<style>`` elements, a
``<meta http-equiv="refresh">`` that leads elsewhere, and ``srcdoc`` frames (parsed in turn).
A value counts when it is absolute with a network scheme (``http:``, ``https:``, ``ftp:``,
``ws:``, ``wss:``) or protocol-relative (``//host``).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

RESOURCE_ATTRIBUTES = frozenset({"src", "href", "srcset", "data", "action", "formaction", "poster", "background",
                                 "xlink:href", "ping", "manifest"})
_NETWORK = re.compile(r"^\s*(?:(?:https?|ftp|wss?):|//|\\\\)", re.IGNORECASE)
_CSS_URL = re.compile(r"url\(\s*['\"]?\s*((?:https?|ftp):|//)|@import", re.IGNORECASE)
_REFRESH_URL = re.compile(r"url\s*=\s*['\"]?\s*((?:https?|ftp):|//)", re.IGNORECASE)


class _Elements(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._in_style = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            value = value or ""
            if name in RESOURCE_ATTRIBUTES and any(_NETWORK.match(part) for part in value.split(",")):
                self.found.append(f"<{tag} {name}={value[:120]}>")
            elif name == "style" and _CSS_URL.search(value):
                self.found.append(f"<{tag} style={value[:120]}>")
            elif name == "srcdoc":
                self.found += external_resources(value)
        equiv = dict(attrs).get("http-equiv") or ""
        if tag == "meta" and equiv.lower() == "refresh" and _REFRESH_URL.search(dict(attrs).get("content") or ""):
            self.found.append(f"<meta http-equiv=refresh content={dict(attrs).get('content')!s:.120}>")
        self._in_style = tag == "style"

    def handle_endtag(self, tag: str) -> None:
        self._in_style = False

    def handle_data(self, data: str) -> None:
        if self._in_style and _CSS_URL.search(data):
            self.found.append(f"<style>{data[:120]}")


def external_resources(html: str) -> list[str]:
    """What in ``html`` would load from the network, each as a short description of the
    element (``<link href=http://…>``); empty for a self-contained page."""
    parser = _Elements()
    parser.feed(html)
    parser.close()
    return parser.found
