"""Which judge the operator configured for the sentences the matcher cannot decide: none by
default.

A judge is configured on the server, never by a visitor (no page names its URL): by the
environment, or by a ``[judge]`` table in ``.streamlit/secrets.toml`` under the working
directory (Streamlit's file for secrets), the environment winning key by key::

    [judge]
    kind = "trustgraph"          # TrustGraph's text-completion service, through its API gateway
    url = "http://localhost:8888/"
    token_env = "TRUSTGRAPH_TOKEN"   # or: token = "..."
    flow = "default"
    timeout_s = 30               # per request, in all (connect, wait, read)
    unsupported = true           # also ask about every unsupported sentence, not just undecided ones

    # or an OpenAI-compatible endpoint (POST {url}/chat/completions):
    # kind = "openai"; url = "https://api.openai.com/v1"; model = "gpt-4o-mini"; token_env = "OPENAI_API_KEY"

=====================================  ====================================================
``TRACE_EXPLORER_JUDGE``               ``kind``: ``trustgraph`` or ``openai`` (``off``: none)
``TRACE_EXPLORER_JUDGE_URL``           ``url``: the gateway's base, or the OpenAI API's base
``TRACE_EXPLORER_JUDGE_TOKEN``         ``token``: the bearer token
``TRACE_EXPLORER_JUDGE_FLOW``          ``flow`` (TrustGraph; default ``default``)
``TRACE_EXPLORER_JUDGE_MODEL``         ``model`` (OpenAI; required there)
``TRACE_EXPLORER_JUDGE_TIMEOUT_S``     ``timeout_s`` (default 30)
``TRACE_EXPLORER_JUDGE_UNSUPPORTED``   ``unsupported``: ``1``/``true`` or ``0``/``false``
=====================================  ====================================================
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

SECRETS_PATH = Path(".streamlit") / "secrets.toml"
KINDS = ("trustgraph", "openai")
DEFAULT_TIMEOUT_S = 30.0
# setting -> the environment variable that sets it
VARIABLES = {"kind": "TRACE_EXPLORER_JUDGE", "url": "TRACE_EXPLORER_JUDGE_URL", "token": "TRACE_EXPLORER_JUDGE_TOKEN",
             "flow": "TRACE_EXPLORER_JUDGE_FLOW", "model": "TRACE_EXPLORER_JUDGE_MODEL",
             "timeout_s": "TRACE_EXPLORER_JUDGE_TIMEOUT_S", "unsupported": "TRACE_EXPLORER_JUDGE_UNSUPPORTED"}
SETTINGS = set(VARIABLES) | {"token_env"}


class JudgeConfigError(ValueError):
    """The judge's configuration cannot be used; the message names the setting and where it was
    read (never a token's value)."""


@dataclass(frozen=True)
class JudgeSettings:
    """A configured judge: ``kind`` "trustgraph" or "openai", ``url``, ``flow`` (TrustGraph),
    ``model`` (OpenAI), ``timeout_s`` per request, ``unsupported`` (ask about every unsupported
    sentence too), ``token`` (kept out of ``repr``)."""

    kind: str
    url: str
    flow: str = "default"
    model: str = ""
    timeout_s: float = DEFAULT_TIMEOUT_S
    unsupported: bool = False
    token: str | None = field(default=None, repr=False)


def judge_settings(environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> JudgeSettings | None:
    """The judge configured by ``environ`` (default ``os.environ``) and the ``[judge]`` table of
    ``.streamlit/secrets.toml`` under ``cwd`` (default the working directory); None when no
    ``kind`` is set, or it is ``off``. Raises JudgeConfigError for a secrets file that is not
    TOML, an unknown kind or setting, a missing or non-http(s) URL, an OpenAI judge without a
    model, a ``token_env`` naming an unset variable, or a timeout that is not a positive number."""
    environ = os.environ if environ is None else environ
    path = (cwd or Path.cwd()) / SECRETS_PATH
    table = _file_table(path)
    where = {key: f"{path} [judge] {key}" for key in table}
    values = dict(table)
    for key, variable in VARIABLES.items():
        if environ.get(variable, "").strip():
            values[key], where[key] = environ[variable].strip(), variable
            if key == "token":
                values.pop("token_env", None)
    kind = str(values.get("kind", "")).strip().lower()
    if kind in ("", "off", "none", "false", "0"):
        return None
    if kind not in KINDS:
        raise JudgeConfigError(f"{where['kind']}: expected trustgraph, openai or off, got {kind[:40]!r}")
    url = _text(values, where, "url")
    if not url or urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).hostname:
        raise JudgeConfigError(f"{where.get('url', VARIABLES['url'])}: expected the judge's http:// or https:// URL")
    model = _text(values, where, "model")
    if kind == "openai" and not model:
        raise JudgeConfigError(f"{where.get('model', VARIABLES['model'])}: an OpenAI-compatible judge needs a model")
    return JudgeSettings(kind, url, flow=_text(values, where, "flow") or "default", model=model,
                         timeout_s=_timeout(values, where), unsupported=_flag(values, where, "unsupported"),
                         token=_token(values, where, environ))


def _file_table(path: Path) -> dict:
    if not path.is_file():
        return {}
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("judge", {})
    except (OSError, UnicodeError, tomllib.TOMLDecodeError) as error:
        raise JudgeConfigError(f"{path}: expected a TOML file ({error})") from None
    if not isinstance(table, dict):
        raise JudgeConfigError(f"{path}: expected a [judge] table")
    unknown = sorted(set(table) - SETTINGS)
    if unknown:
        raise JudgeConfigError(f"{path} [judge]: unknown setting {unknown[0]!r} (expected one of "
                               f"{', '.join(sorted(SETTINGS))})")
    return table


def _text(values: dict, where: dict, key: str) -> str:
    value = values.get(key, "")
    if not isinstance(value, str):
        raise JudgeConfigError(f"{where[key]}: expected a string")
    return value.strip()


def _timeout(values: dict, where: dict) -> float:
    value = values.get("timeout_s", DEFAULT_TIMEOUT_S)
    try:
        seconds = float(value) if not isinstance(value, bool) else -1.0
    except (TypeError, ValueError):
        seconds = -1.0
    if not 0 < seconds < float("inf"):
        raise JudgeConfigError(f"{where['timeout_s']}: expected a positive number of seconds")
    return seconds


def _flag(values: dict, where: dict, key: str) -> bool:
    value = values.get(key, False)
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off", ""):
        return False
    raise JudgeConfigError(f"{where[key]}: expected true or false")


def _token(values: dict, where: dict, environ: Mapping[str, str]) -> str | None:
    variable = values.get("token_env")
    if variable is not None:
        if not isinstance(variable, str) or not environ.get(variable):
            raise JudgeConfigError(f"{where['token_env']}: expected the environment variable {variable!s:.80} "
                                   f"to be set")
        return environ[variable]
    token = values.get("token")
    if token is not None and not isinstance(token, str):
        raise JudgeConfigError(f"{where['token']}: expected a string")
    return token or None
