"""A local stand-in for an OpenAI-compatible chat-completions endpoint, for the judge's tests:
``POST /v1/chat/completions`` with a bearer token, answering ``{"choices": [{"message":
{"role": "assistant", "content": reply}}]}`` as OpenAI's API does, the reply made by
``completion(system, user)``.

Faults: a wrong token is answered 401 with the key quoted back, as some servers do (for the
tests that it never reaches a message); ``hang`` seconds before answering; ``status`` another
HTTP status, its body quoting the Authorization header. ``log`` keeps each request's body and
Authorization header.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler

from tests.loopback_server import LoopbackServer, post_handler, send_json_bytes

TOKEN = "sk-test-judge-4be1d07c"


class FakeChatCompletions:
    """The stand-in endpoint; ``url`` (``http://127.0.0.1:PORT/v1``) once started."""

    def __init__(self, completion: Callable[[str, str], str], token: str = TOKEN):
        self.completion, self.token = completion, token
        self.hang = 0.0
        self.status = 200
        self.log: list[tuple[dict, str | None]] = []
        self._lock = threading.Lock()
        self._server: LoopbackServer | None = None

    def __enter__(self) -> FakeChatCompletions:
        self._server = LoopbackServer(post_handler(self._handle)).__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._server.__exit__(*exc)

    @property
    def url(self) -> str:
        return self._server.base + "v1"

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        raw = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        header = handler.headers.get("Authorization")
        with self._lock:
            self.log.append((body, header))
        if self.hang:
            time.sleep(self.hang)
        if handler.path != "/v1/chat/completions":
            return _send(handler, 404, {"error": {"message": f"no route {handler.path}"}})
        if header != f"Bearer {self.token}":
            return _send(handler, 401, {"error": {"message": f"Incorrect API key provided: {header}",
                                                  "type": "invalid_request_error", "code": "invalid_api_key"}})
        if self.status != 200:
            return _send(handler, self.status, {"error": {"message": f"overloaded (you sent {header})"}})
        messages = {m.get("role"): m.get("content") for m in body.get("messages", []) if isinstance(m, dict)}
        reply = self.completion(messages.get("system", ""), messages.get("user", ""))
        _send(handler, 200, {"id": "chatcmpl-1", "object": "chat.completion", "model": body.get("model"),
                             "choices": [{"index": 0, "message": {"role": "assistant", "content": reply},
                                          "finish_reason": "stop"}],
                             "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


def _send(handler: BaseHTTPRequestHandler, status: int, answer: dict) -> None:
    send_json_bytes(handler, status, json.dumps(answer).encode())
