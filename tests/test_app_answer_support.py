"""The session page's answer support (AppTest, no browser): the answer's sentences as buttons,
unsupported ones marked; a click selects the step that backs the sentence best and shows its
text with the matching words marked; the per-step support is kept for other views."""

from __future__ import annotations

from tests.test_app import open_session, unescape
from tests.workspace_support import sent

SUPERVISOR = "urn:trustgraph:agent:5ed00065-aae1-42a4-98cb-1f5634d607b4"
SUB_AGE = "urn:trustgraph:agent:0af92f43-7cae-4ffe-81bd-494325871eb3"  # its sub-agents
SUB_ROUTES = "urn:trustgraph:agent:45971f13-3fa7-4f99-bbdb-8f85c459281e"
FDA = "urn:trustgraph:agent:fda01076-05c7-49ae-b2c8-e06e75031b24"


def _panel(at):
    return [e for e in at.main.expander if e.label.startswith("Answer support")]


def test_a_click_on_a_sentence_selects_its_best_finding():
    at = open_session(SUPERVISOR)
    [panel] = _panel(at)
    assert panel.label == "Answer support: 2 sentences, each backed by a step"
    buttons = [b for b in at.button if b.key and b.key.startswith("te_support_")]
    assert [unescape(b.label) for b in buttons] == [
        "Lake Baikal (about 25 million years) is far older than Mount Fuji's present cone (about 10,000 years).",
        "Travellers reach Baikal by the Trans-Siberian Railway to Irkutsk, and Fuji by bus from Tokyo."]
    buttons[1].click().run()
    assert not at.exception, at.exception
    assert at.query_params["step"] == f"{SUPERVISOR}/finding/2"
    assert sent(at)["selected"] == f"{SUPERVISOR}/finding/2" and sent(at)["ask"] == 1
    # marked in the timeline and graph: the Finding, and the sub-agent's Observation it repeats
    assert sent(at)["supporting"] == [f"{SUPERVISOR}/finding/2", f"{SUB_ROUTES}/i1/observation"]
    [matching] = sent(at)["matching"][f"{SUPERVISOR}/finding/2"]  # and its words, in the inspector
    assert [matching["text"][a:b] for a, b in matching["spans"]][:5] == [
        "Baikal", "reached", "Trans", "Siberian Railway", "Irkutsk"]
    shown = [h for h in at.main.get("html") if "te-support-text" in h.proto.body]
    assert "<mark>Trans</mark>-<mark>Siberian Railway</mark> to <mark>Irkutsk</mark>" in shown[0].proto.body
    kept = at.session_state["te_answer_support"][SUPERVISOR]
    assert sorted(kept) == [f"{SUB_AGE}/i1/observation", f"{SUB_ROUTES}/i1/observation"] + [
        f"{SUPERVISOR}/finding/{i}" for i in range(3)]
    assert kept[f"{SUPERVISOR}/finding/2"]["sentences"] == [1]


def test_unsupported_sentences_are_marked_and_select_nothing():
    at = open_session(FDA)
    [panel] = _panel(at)
    assert panel.label == "Answer support: 3 sentences, 2 that nothing in this trace supports"
    buttons = [b for b in at.button if b.key and b.key.startswith("te_support_")]
    assert [b.label.startswith(":red[") for b in buttons] == [False, True, True]
    assert not [c for c in at.main.caption if "Judge:" in c.value]  # no judge is configured
    before = sent(at)
    buttons[1].click().run()
    assert (sent(at)["selected"], sent(at)["ask"]) == (before["selected"], before["ask"])
    assert sent(at)["supporting"] == [] and sent(at)["matching"] == {}
    chosen = [b for b in at.button if b.key and b.key.startswith("te_support_")]
    # the chosen one is white on red (a style of its own: test_browser_answer_support), not red
    # words on the primary blue
    assert [(b.label.startswith(":red["), b.proto.type) for b in chosen] == [
        (False, "tertiary"), (False, "primary"), (True, "tertiary")]
    assert [unescape(w.value) for w in at.main.warning if "nothing in this trace" in w.value] == [
        "Sentence 2: nothing in this trace supports it (not found in any step: 547 metres)."]
