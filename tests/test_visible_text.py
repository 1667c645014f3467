"""Control and bidi characters in trace text are shown, never acted on: in the CLI's text and
tables, the app's text, the DAG's tooltips and labels."""

from __future__ import annotations

import subprocess
import sys

from tests.browser_support import REPO_ROOT
from trace_explorer.model.session import Step
from trace_explorer.views.dag.nodes import hover_text
from trace_explorer.views.step_labels import clip
from trace_explorer.views.visible_text import visible_controls

HOSTILE = "ok\x1b]0;PWNED\x07\x1b[2J \u202eevil\u202c\x00\x9b end"
SHOWN = "ok␛]0;PWNED␇␛[2J ⟨U+202E⟩evil⟨U+202C⟩␀⟨U+009B⟩ end"


def test_controls_become_visible_and_tabs_and_lines_stay():
    assert visible_controls(HOSTILE) == SHOWN
    assert visible_controls("a\tb\nc\r\nd") == "a\tb\nc\r\nd"


def test_dag_labels_and_tooltips_show_controls():
    step = Step(id="urn:trustgraph:agent:x/i1", kind="Analysis", fields={"thought": HOSTILE, "action": HOSTILE})
    assert SHOWN in hover_text(step) and "\x1b" not in hover_text(step)
    assert "\u202e" not in clip(HOSTILE, 80) and "⟨U+202E⟩" in clip(HOSTILE, 80)


def test_the_cli_never_prints_a_control_character(tmp_path):
    trace = tmp_path / "esc.ttl"
    trace.write_text(f'''@prefix tg: <https://trustgraph.ai/ns/> . @prefix prov: <http://www.w3.org/ns/prov#> .
<urn:trustgraph:agent:e> a tg:Question, tg:AgentQuestion ; tg:query "{HOSTILE.replace(chr(0), "")}" .
<urn:trustgraph:agent:e/i1> a tg:Analysis ; prov:wasDerivedFrom <urn:trustgraph:agent:e> ; tg:action "{HOSTILE.replace(chr(0), "")}" .
''', encoding="utf-8")
    for command in (["list", str(trace)], ["show", str(trace), "--session", "urn:trustgraph:agent:e"]):
        out = subprocess.run([sys.executable, "-m", "trace_explorer.cli", *command], capture_output=True,
                             cwd=REPO_ROOT, check=True).stdout.decode("utf-8")
        assert "␛]0;PWNED␇" in out and "⟨U+202E⟩evil" in out
        assert not any(ord(c) < 32 and c not in "\n\t" or 0x7f <= ord(c) <= 0x9f or c == "\u202e" for c in out)
