"""Sign-in's rules (which providers an ``[auth]`` table names, what it lacks, the allow-list) and
the door in ``app.py``, run headless with ``AppTest``: with sign-in configured, no page, list or
uploader for an anonymous, refused or misconfigured visit; a permitted person sees the app with
their name, address and a sign-out button. The redirect flow itself is in
``tests/test_browser_sign_in.py``."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from streamlit import config
from streamlit.runtime.secrets import Secrets
from streamlit.testing.v1 import AppTest

from components.hosting.sign_in import DOMAINS_ENV, EMAILS_ENV, AllowList, SignInSettingsError, allow_list, auth_problems, auth_table, display_name, providers, sign_in_configured
from tests.conftest import demo_sessions

REPO = Path(__file__).resolve().parents[1]
SHARED = {"redirect_uri": "http://127.0.0.1:8501/oauth2callback", "cookie_secret": "s" * 32}
ONE = {"client_id": "id", "client_secret": "secret", "server_metadata_url": "https://idp.example/.well-known/openid-configuration"}
TWO_PROVIDERS = dict(SHARED, okta=ONE, entra=ONE)
SESSIONS = demo_sessions()


def test_providers_are_the_named_tables_then_the_default():
    assert providers(dict(SHARED, **ONE)) == ["default"]
    assert providers(TWO_PROVIDERS) == ["okta", "entra"]
    assert providers(dict(TWO_PROVIDERS, **ONE)) == ["okta", "entra", "default"]
    assert providers(dict(SHARED, client_kwargs={"prompt": "login"})) == []  # not a provider's table


def test_auth_problems_name_the_missing_keys_and_never_a_value():
    assert auth_problems(dict(SHARED, **ONE)) == []
    assert auth_problems(TWO_PROVIDERS) == []
    assert auth_problems({"cookie_secret": "hunter2-secret"}) == [
        "`auth.redirect_uri` is missing",
        "no provider: `auth` needs `client_id`, `client_secret`, `server_metadata_url`, "
        "or an `[auth.NAME]` table with them"]
    partial = {"client_id": "id", "server_metadata_url": "https://idp.example/x"}
    assert auth_problems(dict(SHARED, my_idp=partial)) == [
        "`auth.my_idp.client_secret` is missing", "`auth.my_idp`: a provider's name may not hold an underscore"]
    assert not any("hunter2" in p for p in auth_problems({"cookie_secret": "hunter2-secret"}))


def test_the_allow_list_admits_listed_addresses_and_domains_only():
    listed = AllowList(frozenset({"ada@team.example"}), frozenset({"lab.example"}))
    assert listed.permits("Ada@Team.Example", True)
    assert listed.permits("grace@LAB.example")  # no email_verified claim: the provider does not say
    assert not listed.permits("eve@team.example")  # the address is listed, not its domain
    assert not listed.permits("grace@sub.lab.example")  # a domain is not its subdomains
    assert not listed.permits("grace@lab.example.evil.example")
    assert not listed.permits("ada@team.example", False)  # the provider says it is not verified
    assert not listed.permits(None) and not listed.permits("lab.example")
    assert AllowList().open and AllowList().permits(None)  # no list: whoever the provider signs in


def test_the_allow_list_comes_from_the_environment_first_then_the_secrets():
    secrets = {"trace_explorer": {"allowed_emails": ["ADA@team.example"], "allowed_domains": ["@lab.example"]}}
    assert allow_list({}, secrets) == AllowList(frozenset({"ada@team.example"}), frozenset({"lab.example"}))
    env = {EMAILS_ENV: "x@one.example, y@two.example", DOMAINS_ENV: ""}
    assert allow_list(env, secrets) == AllowList(frozenset({"x@one.example", "y@two.example"}), frozenset())
    assert allow_list({}, {}).open
    with pytest.raises(SignInSettingsError, match=r"`trace_explorer.allowed_domains` must be a list of strings"):
        allow_list({}, {"trace_explorer": {"allowed_domains": "lab.example"}})


def fresh_secrets() -> Secrets:
    """Streamlit's secrets as a new server process has them, without the thread that polls the
    files for changes (it would outlive the test's files)."""
    secrets = Secrets()
    secrets._file_watchers_installed = True
    return secrets


def test_a_secrets_file_that_is_there_but_not_toml_keeps_everyone_out(tmp_path, monkeypatch):
    """Streamlit reads no secrets at all from a file it cannot parse: without this rule a typo in
    the file would serve the app without its sign-in."""
    secrets = tmp_path / "secrets.toml"
    secrets.write_text('[auth\nredirect_uri = "https://traces.example.org/oauth2callback"\n', encoding="utf-8")
    before = config.get_option("secrets.files")
    config.set_option("secrets.files", [str(secrets), str(tmp_path / "absent.toml")])
    try:
        monkeypatch.setattr(st, "secrets", fresh_secrets())
        assert sign_in_configured()
        with pytest.raises(SignInSettingsError, match="a secrets file is there but cannot be read"):
            auth_table()
        secrets.write_text('[auth]\nredirect_uri = "https://traces.example.org/oauth2callback"\n', encoding="utf-8")
        monkeypatch.setattr(st, "secrets", fresh_secrets())
        assert sign_in_configured() and auth_table() == {"redirect_uri": "https://traces.example.org/oauth2callback"}
        secrets.unlink()
        monkeypatch.setattr(st, "secrets", fresh_secrets())
        assert not sign_in_configured()  # no file: the app as it always was
    finally:
        config.set_option("secrets.files", before)


def test_display_name_falls_back_from_name_to_address():
    assert display_name({"name": " Ada ", "email": "ada@team.example"}) == "Ada"
    assert display_name({"name": "", "preferred_username": "ada.l"}) == "ada.l"
    assert display_name({"email": "ada@team.example", "sub": "1"}) == "ada@team.example"


def app_with(auth: dict, user: dict, allowed: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.secrets["auth"] = auth
    if allowed is not None:
        at.secrets["trace_explorer"] = allowed
    at.user = user
    return at.run()


def shown(at: AppTest) -> str:
    return "\n".join(str(e.value) for e in [*at.markdown, *at.caption, *at.error, *at.title]).replace("\u2060", "")


def assert_no_app(at: AppTest) -> None:
    """Nothing of the app ran: no sidebar loader, no uploader, no session list."""
    assert not at.exception, at.exception
    assert at.get("file_uploader") == [] and at.sidebar.metric.len == 0 and at.dataframe.len == 0
    assert "TrustGraph provenance traces" not in shown(at)


def test_an_anonymous_visitor_gets_a_button_per_provider_and_nothing_else():
    at = app_with(TWO_PROVIDERS, {"is_logged_in": False})
    assert [b.label for b in at.button] == ["Sign in with okta", "Sign in with entra"]
    assert_no_app(at)
    # one provider: a button too (the browser is sent on once it has kept the address it asked for)
    at = app_with(dict(SHARED, **ONE), {"is_logged_in": False})
    assert [b.label for b in at.button] == ["Sign in"]
    assert_no_app(at)


def test_a_misconfigured_sign_in_lets_no_one_in_and_says_which_keys():
    at = app_with({"cookie_secret": "hunter2-secret", **ONE}, {"is_logged_in": True, "email": "ada@team.example"})
    assert "`auth.redirect_uri` is missing".replace("`", "") in at.error[0].value.replace("`", "")
    assert "hunter2" not in at.error[0].value
    assert_no_app(at)
    at = app_with(dict(SHARED, **ONE), {"is_logged_in": True, "email": "ada@team.example"},
                  {"allowed_emails": "ada@team.example"})
    assert "allowed_emails` must be a list of strings" in at.error[0].value
    assert_no_app(at)


def test_a_refused_address_sees_why_and_a_sign_out_button_only():
    at = app_with(dict(SHARED, **ONE), {"is_logged_in": True, "email": "eve@else.example", "name": "Eve"},
                  {"allowed_domains": ["team.example"]})
    assert "eve@else.example may not use this Trace Explorer" in at.error[0].value.replace("\\", "").replace("\u2060", "")
    assert [b.label for b in at.button] == ["Sign out"]
    assert_no_app(at)


def test_a_permitted_person_sees_the_app_with_their_name_address_and_sign_out():
    at = app_with(dict(SHARED, **ONE), {"is_logged_in": True, "email": "ada@team.example", "name": "Ada Lovelace"},
                  {"allowed_emails": ["ada@team.example"]})
    assert not at.exception, at.exception
    captions = [c.value.replace("\\", "").replace("\u2060", "") for c in at.sidebar.caption]
    assert ":material/person: Signed in as Ada Lovelace · ada@team.example" in captions
    assert "Sign out" in [b.label for b in at.sidebar.button]
    assert len(at.get("file_uploader")) == 1  # the app ran: its sidebar's uploader
    assert ("Sessions", str(len(SESSIONS))) in [(m.label, m.value) for m in at.sidebar.metric]  # the demo, read
