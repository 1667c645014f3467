"""The two kinds of endpoint a judge may ask: TrustGraph's text-completion service, through its
API gateway, and an OpenAI-compatible chat-completions endpoint.

- TrustGraph: ``POST {url}api/v1/flow/{flow}/service/text-completion`` with ``{"system",
  "prompt"}`` -> ``{"response": text, ...}`` (TrustGraph's OpenAPI spec,
  ``paths/flow/text-completion.yaml``, ``TextCompletionRequest.yaml``/``Response.yaml``; the
  gateway's ``TextCompletionRequestTranslator``), sent by ``gateway.Gateway.post``;
- OpenAI: ``POST {url}/chat/completions`` with ``{"model", "messages": [system, user],
  "temperature": 0}`` -> ``{"choices": [{"message": {"content": text}}]}``.

Both with a bearer token in the ``Authorization`` header and nowhere else, connecting only to
the addresses the endpoint policy checked (the operator configured the URL, so it is reachable
as a configured source is, loopback included), and reading each answer with ``bounded_http``'s
limits: ``MAX_REPLY_BYTES`` and one deadline for the whole exchange. Every text quoted from
the endpoint, the reply included, passes through ``secret_scrub`` first.
"""

from __future__ import annotations

import json
from typing import Protocol

from ...network.bounded_http import HttpFailure, bounded_post
from ...network.endpoint_policy import EndpointPolicy, EndpointRefused
from ...network.pinned_http import pinned_session
from ...network.secret_scrub import SecretScrub
from ...sources.trustgraph.gateway import Gateway, GatewayError
from .judge_config import JudgeSettings

# Requests to the judge's endpoint at once: as many as ``judge_run`` sends (its WORKERS); the
# gateway client holds every request of a Gateway to its number of workers.
REQUESTS_AT_ONCE = 4

MAX_REPLY_BYTES = 1024 * 1024  # a verdict is a few hundred bytes; an answer past this is refused


class JudgeError(Exception):
    """The judge gave no reply: not reached, too slow, refused, or an answer not of its kind's
    shape. The message names the judge's URL and why, never the token."""


class Completion(Protocol):
    """An endpoint that completes a prompt: ``label`` names it for people, ``complete(system,
    prompt)`` returns the model's reply text or raises JudgeError."""

    label: str

    def complete(self, system: str, prompt: str) -> str: ...


class TextCompletion:
    """TrustGraph's text-completion service (see the module) at gateway ``url``, ``flow``."""

    def __init__(self, settings: JudgeSettings, pins=None):
        self._gateway = Gateway(settings.url, settings.token, flow=settings.flow, timeout=settings.timeout_s,
                                workers=REQUESTS_AT_ONCE, pins=pins, max_bytes=MAX_REPLY_BYTES)
        self._secrets = SecretScrub(settings.token)
        self.label = f"TrustGraph text-completion at {self._gateway.url} (flow {settings.flow})"

    def complete(self, system: str, prompt: str) -> str:
        """The service's ``response`` to ``system`` and ``prompt``. Raises JudgeError."""
        path = f"flow/{self._gateway.flow}/service/text-completion"
        try:
            answer = self._gateway.post(path, {"system": system, "prompt": prompt})
        except GatewayError as error:
            if error.status in (401, 403):
                raise JudgeError(f"{self.label}: the gateway refused the token (HTTP {error.status}): "
                                 f"give the judge a token this deployment accepts") from None
            raise JudgeError(f"judge: {error}") from None
        reply = answer.get("response")
        if not isinstance(reply, str):
            raise JudgeError(f"{self.label}: expected a \"response\" string in the answer, "
                             f"got {type(reply).__name__}")
        return self._secrets.clean(reply)


class ChatCompletions:
    """An OpenAI-compatible ``chat/completions`` endpoint under ``url``, asking ``model``."""

    def __init__(self, settings: JudgeSettings, pins=None):
        self.url = settings.url.rstrip("/") + "/chat/completions"
        self.model, self.timeout = settings.model, settings.timeout_s
        self._token, self._pins = settings.token, pins
        self._secrets = SecretScrub(settings.token)
        self.label = f"chat completions at {settings.url.rstrip('/')} (model {settings.model})"

    def complete(self, system: str, prompt: str) -> str:
        """The first choice's message content. Raises JudgeError."""
        headers = {"Content-Type": "application/json"}
        if self._token:
            headers["Authorization"] = f"Bearer {self._token}"
        body = {"model": self.model, "temperature": 0,
                "messages": [{"role": "system", "content": system}, {"role": "user", "content": prompt}]}
        session = pinned_session(self._pins)
        try:
            answer = bounded_post(session, self.url, json=body, headers=headers, timeout=self.timeout,
                                  max_bytes=MAX_REPLY_BYTES)
        except HttpFailure as failure:
            raise JudgeError(f"{self.label}: {self._secrets.clean(failure)}") from None
        finally:
            session.close()
        if answer.status in (401, 403):
            raise JudgeError(f"{self.label}: the endpoint refused the token (HTTP {answer.status})")
        if answer.status != 200:
            words = self._secrets.clean(answer.body, 200, cut_short=answer.cut_short)
            raise JudgeError(f"{self.label}: HTTP {answer.status}: {words}")
        try:
            reply = json.loads(answer.body)["choices"][0]["message"]["content"]
        except (ValueError, RecursionError, KeyError, IndexError, TypeError):
            reply = None
        if not isinstance(reply, str):
            raise JudgeError(f"{self.label}: expected {{\"choices\": [{{\"message\": {{\"content\": text}}}}]}}, "
                             f"got {self._secrets.clean(answer.body, 120)!r}")
        return self._secrets.clean(reply)


def completion(settings: JudgeSettings, policy: EndpointPolicy | None = None) -> Completion:
    """The endpoint ``settings`` configure, pinned to the addresses ``policy`` checked (default:
    ``TRACE_EXPLORER_ENDPOINT_ALLOW``'s, with the judge's own URL allowed as a configured one).
    Raises JudgeError when the URL's host cannot be resolved or is refused."""
    policy = policy or EndpointPolicy.from_environment()
    policy = EndpointPolicy(policy.allow, policy.configured + (settings.url,))
    try:
        pins = policy.pin(settings.url).pins
    except EndpointRefused as refused:
        raise JudgeError(f"judge {settings.url}: {refused}") from None
    return TextCompletion(settings, pins) if settings.kind == "trustgraph" else ChatCompletions(settings, pins)
