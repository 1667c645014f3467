"""Sign-in end to end, in headless Chromium, against a real OpenID Connect provider
(``oidc-provider-mock``, on 127.0.0.1) and the app configured for it in a secrets file of the
test's own: a session link sends an anonymous visitor to the provider, signing in there brings
them back to that link with their name and address in the sidebar, an address the
allow-list does not name is refused everywhere, and signing out ends the session."""

from __future__ import annotations

import contextlib
import threading
import urllib.parse

import pytest

from tests.browser_support import browser_contexts, poll, screenshot, streamlit_server, wait_for_streamlit_idle
from tests.conftest import manifest_sessions

pytestmark = pytest.mark.browser

ADA = {"sub": "ada", "email": "ada@team.example", "name": "Ada Lovelace", "email_verified": True}
GRACE = {"sub": "grace", "email": "Grace@Lab.Example", "name": "Grace Hopper", "email_verified": True}
MALLORY = {"sub": "mallory", "email": "mallory@elsewhere.example", "name": "Mallory", "email_verified": True}
REACT = next(s for s in manifest_sessions() if s["session"] == "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370")
SIDEBAR = '[data-testid="stSidebar"]'
USER_COOKIE = "_streamlit_user"  # Streamlit's identity cookie


@contextlib.contextmanager
def oidc_provider(users: list[dict]):
    """An OpenID Connect provider on a free port of 127.0.0.1 whose sign-in form offers
    ``users`` (each a ``sub`` and its claims) as one-click buttons; yields its base URL."""
    import warnings

    import werkzeug.serving
    with warnings.catch_warnings():  # the provider imports authlib's older API, which warns (not ours to mend)
        import authlib.deprecate  # noqa: F401  (its import sets its own warnings to "always": ignored after it)
        warnings.simplefilter("ignore")
        from oidc_provider_mock import User, app

    claims = [User(sub=u["sub"], claims={k: v for k, v in u.items() if k != "sub"}) for u in users]
    server = werkzeug.serving.make_server("127.0.0.1", 0, app(user_claims=claims), threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.1}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def provider():
    with oidc_provider([ADA, GRACE, MALLORY]) as url:
        yield url


@pytest.fixture(scope="module")
def app(provider, tmp_path_factory):
    """The app with sign-in through ``provider``: Ada's address and Grace's domain allowed."""
    secrets = tmp_path_factory.mktemp("sign-in") / "secrets.toml"
    secrets.write_text(f"""
[auth]
redirect_uri = "http://127.0.0.1:{{port}}/oauth2callback"
cookie_secret = "a-test-cookie-secret-of-more-than-fourteen-bytes"
client_id = "trace-explorer"
client_secret = "trace-explorer-secret"
server_metadata_url = "{provider}/.well-known/openid-configuration"

[trace_explorer]
allowed_emails = ["ADA@team.example"]
allowed_domains = ["lab.example"]
""", encoding="utf-8")
    with streamlit_server(env={"STREAMLIT_SECRETS_FILES": str(secrets)}) as url:
        yield url


def shown(page, where: str = '[data-testid="stApp"]') -> str:
    """The text of ``where`` as a person reads it (without the invisible word joiners that keep an
    address from becoming a link)."""
    return page.locator(where).inner_text().replace("\u2060", "")


def signed_in_as(page, line: str) -> None:
    """Wait until the sidebar names the signed-in person with ``line``."""
    assert poll(page, lambda: shown(page, SIDEBAR), lambda text: line in text), shown(page, SIDEBAR)


def session_link(app: str) -> str:
    return f"{app}/session?session={urllib.parse.quote(REACT['session'], safe='')}"


def sign_in_at_provider(page, provider: str, sub: str) -> None:
    """On the provider's form (where the app sent the browser), sign in as ``sub``."""
    page.wait_for_url(f"{provider}/oauth2/authorize?*", timeout=30000)
    page.get_by_role("button", name=sub, exact=True).click()


def test_a_session_link_signs_in_at_the_provider_and_sign_out_ends_it(app, provider):
    with browser_contexts(1) as (page,):
        page.goto(session_link(app))
        sign_in_at_provider(page, provider, "ada")  # no page of the app was shown before
        page.wait_for_url(session_link(app), timeout=30000)  # back at the link opened
        wait_for_streamlit_idle(page, timeout_ms=60000)
        page.get_by_text(REACT["question"], exact=True).first.wait_for()
        signed_in_as(page, "Signed in as Ada Lovelace · ada@team.example")
        assert any(c["name"] == USER_COOKIE for c in page.context.cookies())
        screenshot(page, "sign-in-session")

        page.goto(app)  # the address kept for sign-in took them back once only
        wait_for_streamlit_idle(page, timeout_ms=60000)
        signed_in_as(page, "Signed in as Ada Lovelace · ada@team.example")
        assert "/session" not in page.url

        page.locator(SIDEBAR).get_by_role("button", name="Sign out").click()
        page.wait_for_url(f"{provider}/oauth2/end_session?*", timeout=30000)  # the provider's own sign-out
        page.get_by_role("button", name="End session").click()
        page.wait_for_url(f"{provider}/oauth2/authorize?*", timeout=30000)  # back at the door: the app asks again
        assert not any(c["name"] == USER_COOKIE for c in page.context.cookies())  # Ada's identity is gone
        sign_in_at_provider(page, provider, "grace")
        page.wait_for_url(f"{app}/**", timeout=30000)
        wait_for_streamlit_idle(page, timeout_ms=60000)
        signed_in_as(page, "Signed in as Grace Hopper · Grace@Lab.Example")  # her domain is allowed


def test_an_address_the_allow_list_does_not_name_is_refused_on_every_page(app, provider):
    with browser_contexts(1) as (page,):
        page.goto(session_link(app))
        sign_in_at_provider(page, provider, "mallory")
        page.wait_for_url(f"{app}/**", timeout=30000)
        wait_for_streamlit_idle(page, timeout_ms=60000)
        page.get_by_text("may not use this Trace Explorer").wait_for()
        for address in (session_link(app), f"{app}/insights", f"{app}/?q=Europa"):
            page.goto(address)
            wait_for_streamlit_idle(page, timeout_ms=60000)
            text = shown(page)
            assert "mallory@elsewhere.example may not use this Trace Explorer" in text
            assert REACT["question"] not in text and "Upload" not in text
            assert page.locator('[data-testid="stFileUploaderDropzoneInput"]').count() == 0
        screenshot(page, "sign-in-refused")
        page.get_by_role("button", name="Sign out").click()
        page.wait_for_url(f"{provider}/oauth2/end_session?*", timeout=30000)
