"""Sign-in: who may use the app when the operator configured it.

Sign-in is Streamlit's own (``st.login`` / ``st.user``, OpenID Connect through Authlib), set in
``.streamlit/secrets.toml``'s ``[auth]`` table: ``redirect_uri`` and ``cookie_secret``, and one
provider's ``client_id``, ``client_secret`` and ``server_metadata_url`` in ``[auth]`` itself or
several providers, each in an ``[auth.NAME]`` table (Streamlit's own layout, see ``st.login``).
With no ``[auth]`` table the app is open, as it always was.

Who may come in is the operator's allow-list: ``allowed_emails`` and ``allowed_domains`` in the
secrets file's ``[trace_explorer]`` table, or ``TRACE_EXPLORER_ALLOWED_EMAILS`` /
``TRACE_EXPLORER_ALLOWED_DOMAINS`` in the environment (comma- or space-separated; a variable
that is set replaces the file's list). With neither list, everyone the provider signs in is let
in. ``require_sign_in`` is called by ``app.py`` before the navigation and the sidebar, so no
page, link, upload, download or component of the app runs for anyone else.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass

import streamlit as st

from .sign_in_return import go_back_once, keep_address
from ..text import md_escape

_LOG = logging.getLogger(__name__)

SHARED_KEYS = ("redirect_uri", "cookie_secret")  # Streamlit's, for every provider
PROVIDER_KEYS = ("client_id", "client_secret", "server_metadata_url")  # Streamlit's, per provider
DEFAULT_PROVIDER = "default"  # st.login()'s name for the provider set in [auth] itself
SETTINGS_TABLE = "trace_explorer"
EMAILS_ENV = "TRACE_EXPLORER_ALLOWED_EMAILS"
DOMAINS_ENV = "TRACE_EXPLORER_ALLOWED_DOMAINS"
_SEPARATORS = re.compile(r"[\s,]+")
_SIGNED_OUT = "te_signed_out"  # this session's person asked to sign out: no new sign-in in its last run


class SignInSettingsError(ValueError):
    """The secrets file's sign-in settings cannot be used; the message names the key, never a
    value (a value may be a secret)."""


def _secrets() -> Mapping:
    """The secrets file(s) Streamlit reads (``secrets.files``: ``.streamlit/secrets.toml`` in
    the working directory and the home directory), or an empty mapping when there is none.

    Raises SignInSettingsError when one of them is there but Streamlit cannot read it (not TOML):
    Streamlit then reads no secrets at all, which would serve the app without its sign-in."""
    if st.secrets.load_if_toml_exists():
        return st.secrets.to_dict()
    if any(os.path.exists(path) for path in st.get_option("secrets.files")):
        raise SignInSettingsError("a secrets file is there but cannot be read (the server's log says why)")
    return {}


def auth_table() -> Mapping:
    """The secrets' ``[auth]`` table (``{}`` when there is none). Raises SignInSettingsError when
    the file is unreadable or ``auth`` is not a table."""
    auth = _secrets().get("auth", {})
    if not isinstance(auth, Mapping):
        raise SignInSettingsError("`auth` in the secrets file is not a table")
    return auth


def sign_in_configured() -> bool:
    """True when the secrets name an ``[auth]`` table (complete or not: an incomplete one makes
    the app refuse everyone with a message rather than serve without sign-in). A secrets file
    that is there but is not TOML counts as configured, for the same reason."""
    try:
        return bool(auth_table())
    except SignInSettingsError:
        return True


def providers(auth: Mapping) -> list[str]:
    """The names ``st.login`` takes for the providers in ``auth`` (an ``[auth]`` table): each
    sub-table with any provider key, in file order, then ``"default"`` when ``[auth]`` itself
    has one (Streamlit's rule, ``streamlit.auth_util.validate_auth_credentials``)."""
    named = [name for name, value in auth.items()
             if isinstance(value, Mapping) and any(key in value for key in PROVIDER_KEYS)]
    if any(key in auth for key in PROVIDER_KEYS):
        named.append(DEFAULT_PROVIDER)
    return named


def auth_problems(auth: Mapping) -> list[str]:
    """What ``auth`` (an ``[auth]`` table) lacks for ``st.login`` to work, as sentences naming
    keys (never values); ``[]`` when it is complete."""
    problems = [f"`auth.{key}` is missing" for key in SHARED_KEYS if not auth.get(key)]
    names = providers(auth)
    if not names:
        problems.append("no provider: `auth` needs " + ", ".join(f"`{k}`" for k in PROVIDER_KEYS)
                        + ", or an `[auth.NAME]` table with them")
    for name in names:
        table = auth if name == DEFAULT_PROVIDER else auth[name]
        where = "auth" if name == DEFAULT_PROVIDER else f"auth.{name}"
        problems += [f"`{where}.{key}` is missing" for key in PROVIDER_KEYS if not table.get(key)]
        if "_" in name:  # st.login refuses such names
            problems.append(f"`{where}`: a provider's name may not hold an underscore")
    return problems


@dataclass(frozen=True)
class AllowList:
    """Who may come in: ``emails`` (lower-cased addresses) and ``domains`` (lower-cased, the
    part after the last "@", without it). Both empty: everyone the provider signs in."""

    emails: frozenset[str] = frozenset()
    domains: frozenset[str] = frozenset()

    @property
    def open(self) -> bool:
        return not self.emails and not self.domains

    def permits(self, email: object, email_verified: object = None) -> bool:
        """True when the address ``email`` (a claim of the ID token) may come in. With a list,
        an address the provider says is not verified (``email_verified`` false) never does, nor
        a person with no address; the comparison ignores case. A domain admits its own
        addresses, not its subdomains'."""
        if self.open:
            return True
        if not isinstance(email, str) or "@" not in email or email_verified is False:
            return False
        address = email.strip().lower()
        return address in self.emails or address.rpartition("@")[2] in self.domains


def _entries(value: object, key: str) -> list[str]:
    if isinstance(value, list) and all(isinstance(item, str) for item in value):
        return [item.strip() for item in value if item.strip()]
    raise SignInSettingsError(f"`{SETTINGS_TABLE}.{key}` must be a list of strings")


def allow_list(environ: Mapping[str, str] | None = None, secrets: Mapping | None = None) -> AllowList:
    """The operator's allow-list: ``TRACE_EXPLORER_ALLOWED_EMAILS`` / ``_DOMAINS`` from
    ``environ`` (default ``os.environ``) where set, else ``allowed_emails`` / ``allowed_domains``
    of the ``[trace_explorer]`` table of ``secrets`` (default: Streamlit's secrets). Raises
    SignInSettingsError for a value that is not a list of strings."""
    environ = os.environ if environ is None else environ
    table = (_secrets() if secrets is None else secrets).get(SETTINGS_TABLE, {})
    if not isinstance(table, Mapping):
        raise SignInSettingsError(f"`{SETTINGS_TABLE}` in the secrets file is not a table")

    def listed(env: str, key: str) -> frozenset[str]:
        entries = _SEPARATORS.split(environ[env]) if env in environ else _entries(table.get(key, []), key)
        return frozenset(entry.lower().lstrip("@") for entry in entries if entry)

    return AllowList(listed(EMAILS_ENV, "allowed_emails"), listed(DOMAINS_ENV, "allowed_domains"))


def display_name(user: Mapping) -> str:
    """The name to show for ``user`` (``st.user``'s claims): ``name``, else
    ``preferred_username``, else the e-mail address, else ``sub``."""
    for claim in ("name", "preferred_username", "email", "sub"):
        if isinstance(user.get(claim), str) and user[claim].strip():
            return user[claim].strip()
    return "unknown"


def require_sign_in() -> None:
    """With sign-in configured, stop this run (``st.stop``) unless a person the allow-list
    permits is signed in; otherwise draw their name, address and a sign-out button at the top
    of the sidebar. Without sign-in configured, do nothing. Called by ``app.py`` first.

    An anonymous visitor is sent to the provider (``st.login``) when there is one, or offered a
    button per provider, and comes back to the address they asked for
    (``components/hosting/sign_in_return.py``); a refused one is told so with a sign-out button;
    settings that cannot work refuse everyone with a message naming the keys."""
    if not sign_in_configured():
        return
    try:
        auth = auth_table()
        problems = auth_problems(auth)
        allowed = allow_list()
    except SignInSettingsError as error:
        problems = [str(error)]
    if problems:
        _LOG.error("sign-in settings cannot work: %s", "; ".join(problems))
        _closed_page()
        st.error("Sign-in is set up but cannot work, so no one can come in (the operator's "
                 "settings): " + "; ".join(problems) + ".", icon=":material/lock:")
        st.stop()
    user = st.user
    if not user.is_logged_in:
        if st.session_state.get(_SIGNED_OUT):  # st.logout's rerun: its redirect must win over st.login's
            _closed_page()
            st.write("Signing out…")
        else:
            _sign_in_page(providers(auth))
        st.stop()
    claims = user.to_dict()
    if not allowed.permits(claims.get("email"), claims.get("email_verified")):
        _closed_page()
        st.error(f"{md_escape(claims.get('email') or display_name(claims), one_line=True)} may not use "
                 "this Trace Explorer. Sign out to sign in with another account.", icon=":material/block:")
        _sign_out_button()
        st.stop()
    _signed_in_sidebar(claims)


def _closed_page() -> None:
    """The page config and title of a run that stops at the door."""
    st.set_page_config(page_title="Trace Explorer", page_icon="🧭", layout="centered")
    st.title(":material/lock: Trace Explorer")


def _sign_in_page(names: list[str]) -> None:
    _closed_page()
    st.write("Sign in to see the traces.")
    for name in names:
        label = "Sign in" if name == DEFAULT_PROVIDER else f"Sign in with {md_escape(name)}"
        st.button(label, key=f"te_sign_in_{name}", icon=":material/login:",
                  on_click=st.login, args=(None if name == DEFAULT_PROVIDER else name,))
    # the address asked for, kept in the tab for after sign-in; then, with one provider, straight
    # to it (the button stays for a browser that was not sent)
    if keep_address() and len(names) == 1:
        st.login(None if names[0] == DEFAULT_PROVIDER else names[0])


def _signed_in_sidebar(claims: Mapping) -> None:
    with st.sidebar:
        name, email = display_name(claims), claims.get("email")
        line = md_escape(name, one_line=True)
        if isinstance(email, str) and email and email != name:
            line += f" · {md_escape(email, one_line=True)}"
        st.caption(f":material/person: Signed in as {line}")
        _sign_out_button()
        go_back_once()


def _sign_out() -> None:
    st.session_state[_SIGNED_OUT] = True
    st.logout()


def _sign_out_button() -> None:
    st.button("Sign out", on_click=_sign_out, icon=":material/logout:", key="te_sign_out")
