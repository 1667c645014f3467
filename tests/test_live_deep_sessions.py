"""A session deeper than one poll follows (``live.tracker.MAX_LEVELS``) is read to its last step
when it is opened, so the steps it already had never come later as news (they would move the
newest-step mark, and with "Follow the newest step" the selection, back to an old step)."""

from __future__ import annotations

from trace_explorer.live.sparql_probe import Found, RootFacts
from trace_explorer.live.tracker import MAX_LEVELS, Tracker
from trace_explorer.model.vocabulary import PROV, TG

ROOT = "urn:trustgraph:agent:deep"
ANALYSIS, OBSERVATION = TG + "Analysis", TG + "Observation"


def chain_step(n: int) -> str:
    return f"{ROOT}/i{n // 2 + 1}/{'observation' if n % 2 else 'analysis'}"


class ChainProbe:
    """A source holding one unanswered ReAct session: a chain of ``steps`` Analysis and
    Observation entities, each deriving from the one before (the first from the root). Counts
    the ``children`` queries it answers."""

    def __init__(self, steps: int):
        self.steps = steps
        self.queries = 0

    def baseline(self):
        return {}

    def since(self) -> str:
        return "1970-01-01T00:00:00Z"

    def details(self, roots):
        return {r: RootFacts(r, question="deep?", types={TG + "AgentQuestion", PROV + "Entity"}) for r in roots}

    def _parent(self, n: int) -> str:
        return ROOT if n == 0 else chain_step(n - 1)

    def children(self, parents):
        self.queries += 1
        parents = set(parents)
        return [(chain_step(n), self._parent(n), OBSERVATION if n % 2 else ANALYSIS)
                for n in range(self.steps) if self._parent(n) in parents]

    def poll(self, frontier):
        return Found(edges=self.children(frontier))

    def texts(self, steps):
        return {}


def test_a_session_deeper_than_a_poll_follows_is_read_whole_when_watched():
    depth = 2 * MAX_LEVELS + 11
    probe = ChainProbe(depth)
    tracker = Tracker(probe)
    tracker.cycle()  # the first cycle: the baseline, nothing open
    tracker.watch(ROOT)
    assert len(tracker.sessions[ROOT].steps) == depth  # every level, not the first MAX_LEVELS
    assert probe.queries == depth + 1  # one query a level, and one that finds nothing below
    probe.steps = depth + 2  # two steps written while the session is watched
    events = tracker.cycle()
    assert [e.step for e in events] == [chain_step(depth), chain_step(depth + 1)]


def test_a_poll_still_follows_at_most_max_levels_of_news_at_once():
    probe = ChainProbe(3)
    tracker = Tracker(probe)
    tracker.cycle()
    tracker.watch(ROOT)
    probe.steps = 3 + MAX_LEVELS + 5  # written whole between two polls
    first, second = tracker.cycle(), tracker.cycle()
    assert [e.step for e in first] == [chain_step(n) for n in range(3, 3 + MAX_LEVELS)]
    assert [e.step for e in second] == [chain_step(n) for n in range(3 + MAX_LEVELS, 3 + MAX_LEVELS + 5)]
