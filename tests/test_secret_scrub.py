"""Secrets are scrubbed from text quoted from a server before it is cut, in every form a server
may echo them, and a quote that stops inside a secret keeps none of its start."""

from __future__ import annotations

import base64
import json

import pytest

from trace_explorer.sources.secret_scrub import SecretScrub

TOKEN = "tok/\"9f8e7d6c5b4a"


@pytest.mark.parametrize("cut", range(1, len(TOKEN)))
def test_a_cut_inside_the_token_keeps_none_of_it(cut):
    text = "x" * 50 + "Bearer " + TOKEN + " more"
    scrubbed = "x" * 50 + "Bearer *** more"  # scrubbed first, then cut where the token was cut
    limit = 57 + cut
    assert SecretScrub(TOKEN).clean(text, limit=limit) == (
        scrubbed if len(scrubbed) <= limit else scrubbed[:limit] + " …")
    shown = SecretScrub(TOKEN).clean(text[: 57 + cut], cut_short=True)  # a read that stopped there
    assert shown == "x" * 50 + "Bearer ***"


def test_every_echoed_form_is_scrubbed():
    scrub = SecretScrub(TOKEN, "pa ss&1", basic=("ana", "pa ss&1"))
    echoed = " | ".join([TOKEN, json.dumps(TOKEN)[1:-1], "tok%2F%229f8e7d6c5b4a", "pa%20ss%261",
                         base64.b64encode(b"ana:pa ss&1").decode(), "pa ss&1"])
    assert scrub.clean(echoed) == " | ".join(["***"] * 6)
    assert scrub.clean(echoed.encode()) == " | ".join(["***"] * 6)  # bytes are decoded first


def test_no_secret_changes_nothing():
    assert not SecretScrub(None, "")
    assert SecretScrub(None).clean("a" * 10, limit=4) == "aaaa …"


def test_a_secret_echoed_in_another_case_or_encoding_is_removed():
    scrub = SecretScrub("Reflect-Secret 3131")
    for echoed in ("reflect-secret 3131", "REFLECT-SECRET 3131", "Reflect%2DSecret%203131", "reflect%2dsecret+3131",
                   "Reflect-Secret%203131", "\\u0052eflect-Secret 3131"):
        assert scrub.clean(f"token {echoed}!") == "token ***!", echoed
    assert scrub.clean("reflect-secret", cut_short=True) == "***"  # a cut echo, in lower case
    assert scrub.clean("reflect-secrets are fine", cut_short=True) == "reflect-secrets are fine"
