"""Secrets are scrubbed from text quoted from a server before it is cut, in every form a server
may echo them, and a quote that stops inside a secret keeps none of its start."""

from __future__ import annotations

import base64
import json

import pytest

from trace_explorer.network.secret_scrub import SecretScrub

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
    # any start of the secret of four characters or more is the secret's: a quote that gives it gives that much away
    assert scrub.clean("reflect-secrets are fine", cut_short=True) == "***s are fine"
    assert scrub.clean("refrains are fine") == "refrains are fine"


BEARER = "tg-7f3a9c0e1d2b4a58"


@pytest.mark.parametrize("echoed", [
    BEARER[:7],  # the adversary's: a 7-character start of the bearer token
    BEARER[:4], BEARER.upper()[:12],
    base64.b64encode(BEARER.encode()).decode(),  # the adversary's: its base64
    base64.b64encode(b"Authorization: Bearer " + BEARER.encode()).decode(),  # inside a dumped header, any alignment
    base64.b64encode(b"x: Bearer " + BEARER.encode() + b"\r\n").decode(),
    base64.b64encode(b"xy: Bearer " + BEARER.encode() + b"\r\n").decode(),
    base64.urlsafe_b64encode(b"\xfb\xff" + BEARER.encode()).decode(),
    base64.b64encode(BEARER.encode()).decode()[:9],  # the start of its base64
])
def test_the_starts_and_the_base64_of_a_token_are_scrubbed(echoed):
    scrubbed = SecretScrub(BEARER).clean(f"error: {echoed} end")
    assert scrubbed.startswith("error: ") and scrubbed.endswith(" end") and "***" in scrubbed
    assert BEARER[:4] not in scrubbed.lower()
    # no six characters of the token's base64, at any of its three alignments, in either alphabet
    for shift in range(3):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            encoded = encode(bytes(shift) + BEARER.encode()).decode()[4:-4]
            assert not any(encoded[i:i + 6] in scrubbed for i in range(len(encoded) - 6)), (shift, scrubbed)


def test_three_characters_of_a_token_are_not_its_own():
    assert SecretScrub(BEARER).clean("a tg-x error") == "a tg-x error"
