"""The README and the pages under docs/ hold up: every relative link leads to a file (and an
``#anchor`` to a heading of it, by GitHub's anchor rules), every ``trace-explorer`` command in a
code block is one the parser takes, the commands that read only the bundled demo run and exit
with 0, docs/cli.md's reference is what ``scripts/cli_reference.py`` writes from the parser, and
every ``(docs/PAGE.md, "Section")`` that code cites is a heading of that page, and every file the
pages name (``folder/name.py``) is there.

Cheap on purpose: no server, no subprocess; the commands run in this process through the
command line's ``main``."""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import io
import re
import shlex
from pathlib import Path

import pytest

from trace_explorer.cli.main import _parser, main

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
README_MOST_LINES = 250
# The command line the README's first lines give: CI and the tests' set-up start from them.
FIRST_LINES = ["# Trace Explorer", "", "```bash",
               "bash scripts/demo.sh    # set up .venv and start the app on the bundled demo traces: "
               "http://localhost:8501",
               "bash scripts/test.sh    # set up .venv (and Debian's Chromium for the browser tests) "
               "and run every test",
               "```"]
_FENCE = re.compile(r"^\s*(```|~~~)")
_LINK = re.compile(r"!?\[[^\]]*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_COMMAND = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*=\S*\s+)*trace-explorer(\s|$)")
_SOURCES = ("--store", "--endpoint", "--trustgraph")
_WRITERS = ("ingest", "reindex", "sync")


def _cli_reference():
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "scripts" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def split_blocks(text: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """``(prose, code)``: the page's lines outside and inside fenced code blocks, each with its
    line number (from 1)."""
    prose, code, inside = [], [], False
    for number, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            inside = not inside
        else:
            (code if inside else prose).append((number, line))
    return prose, code


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading's text: links reduced to their text, lower case, every
    character but letters, digits, spaces, ``-`` and ``_`` dropped, spaces made ``-``."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return "".join(char for char in text if char.isalnum() or char in " -_").replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every heading's anchor in a page, a repeated one suffixed ``-1``, ``-2``… as GitHub does."""
    found, seen = set(), {}
    for _, line in split_blocks(text)[0]:
        heading = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if heading:
            base = anchor(heading.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


def broken_links(page: Path) -> list[str]:
    """``"page:line: target (why)"`` for each relative link of ``page`` that leads nowhere."""
    text = page.read_text(encoding="utf-8")
    broken = []
    for number, line in split_blocks(text)[0]:
        for target in _LINK.findall(_CODE_SPAN.sub("", line)):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            path, _, fragment = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            where = f"{page.relative_to(ROOT)}:{number}: {target}"
            if not linked.exists():
                broken.append(f"{where} (no such file)")
            elif fragment and fragment not in anchors(linked.read_text(encoding="utf-8")):
                broken.append(f"{where} (no heading with that anchor in {linked.name})")
    return broken


def commands(page: Path) -> list[tuple[str, list[str]]]:
    """``[("page:line", argv)]``: each ``trace-explorer`` command in the page's code blocks, its
    backslash-continued lines joined, a leading ``VAR=value`` and a trailing ``# comment`` left out."""
    found, pending, start = [], "", 0
    for number, line in split_blocks(page.read_text(encoding="utf-8"))[1]:
        if not pending:
            start = number
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        whole, pending = pending + line, ""
        if not _COMMAND.match(whole):  # other code (JSON, TOML, tables) is no shell to split
            continue
        words = shlex.split(whole, comments=True)
        while words[0] != "trace-explorer":
            words.pop(0)
        found.append((f"{page.relative_to(ROOT)}:{start}", words[1:]))
    return found


DOC_COMMANDS = [found for page in PAGES for found in commands(page)]


def reads_only_the_demo(argv: list[str]) -> bool:
    """Whether a command reads the bundled demo and nothing else (so it can be run here)."""
    return (argv[0] not in _WRITERS and not any(word in _SOURCES for word in argv)
            and ("--demo" in argv or any(word.startswith("trace_explorer/demo_data") for word in argv)))


# -- the checks' own rules, on pages made here -------------------------------------------------


def test_anchors_follow_githubs_rules():
    assert anchor("A running TrustGraph (`--trustgraph URL`)") == "a-running-trustgraph---trustgraph-url"
    assert anchor("Statistics at 100,000 sessions: kept") == "statistics-at-100000-sessions-kept"
    assert anchor("Views: the answers' previews") == "views-the-answers-previews"
    assert anchor("See [the CLI](cli.md) here") == "see-the-cli-here"
    assert anchors("# Totals\n## Totals\n```\n# not a heading\n```\n### Totals") == {"totals", "totals-1", "totals-2"}


def test_a_broken_link_and_a_missing_heading_are_named(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    (tmp_path / "other.md").write_text("# Other\n## Its part\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text("# Page\n[ok](other.md#its-part) [self](#page) `[code](nowhere.md)`\n"
                    "[gone](missing.md) [no part](other.md#elsewhere) [web](https://example.org/x)\n"
                    "```\n[in code](nowhere.md)\n```\n", encoding="utf-8")
    assert broken_links(page) == ["page.md:3: missing.md (no such file)",
                                  "page.md:3: other.md#elsewhere (no heading with that anchor in other.md)"]


def test_commands_are_found_in_code_blocks_only(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.ROOT", tmp_path)
    page = tmp_path / "page.md"
    page.write_text("trace-explorer list --demo\n```bash\ntrace-explorer show --demo --session 62c33a4f   # a comment\n"
                    "X=1 Y=2 \\\n  trace-explorer list --store ~/t\nusage: trace-explorer list [PATH ...]\n```\n",
                    encoding="utf-8")
    assert commands(page) == [("page.md:3", ["show", "--demo", "--session", "62c33a4f"]),
                              ("page.md:4", ["list", "--store", "~/t"])]
    assert [reads_only_the_demo(argv) for _, argv in commands(page)] == [True, False]


# -- the pages ---------------------------------------------------------------------------------


def test_the_readme_is_short_and_starts_with_the_two_commands():
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert lines[:len(FIRST_LINES)] == FIRST_LINES
    assert len(lines) <= README_MOST_LINES


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_relative_link_resolves(page):
    assert broken_links(page) == []


def test_the_docs_hold_commands_to_check():
    assert len(DOC_COMMANDS) >= 20
    assert sum(reads_only_the_demo(argv) for _, argv in DOC_COMMANDS) >= 10


@pytest.mark.parametrize("where,argv", DOC_COMMANDS, ids=[where for where, _ in DOC_COMMANDS])
def test_every_command_is_one_the_parser_takes(where, argv):
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            parsed = _parser().parse_args(argv)
        except SystemExit:
            pytest.fail(f"{where}: `trace-explorer {shlex.join(argv)}` is refused: {stderr.getvalue().strip()}")
    assert parsed.command == argv[0]


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("doc_commands")


@pytest.mark.parametrize("where,argv", [found for found in DOC_COMMANDS if reads_only_the_demo(found[1])],
                         ids=[where for where, argv in DOC_COMMANDS if reads_only_the_demo(argv)])
def test_every_demo_command_runs(where, argv, run_folder, monkeypatch, capsys):
    monkeypatch.chdir(run_folder)  # what a command writes (page.html, dag.svg) lands here
    argv = [str(ROOT / word) if word.startswith("trace_explorer/demo_data") else word for word in argv]
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 0, f"{where}: `trace-explorer {shlex.join(argv)}` exited with {status}: {err[-2000:]}"
    written = [run_folder / word for word in argv if re.search(r"\.(html|svg|png|pdf|md|ttl|json)$", word)]
    assert out.strip() or written, f"{where}: printed nothing"
    for path in written:
        assert path.stat().st_size > 0, f"{where}: wrote nothing to {path.name}"
    if "--session" in argv and out.strip() and argv[0] != "export":
        key = argv[argv.index("--session") + 1].lower()
        assert key in out.lower(), f"{where}: the output names no session {key!r}"


_NAMED_FILE = re.compile(r"`((?:[\w.-]+/)+[\w.-]+\.(?:py|md|toml|ttl|trig|nq|json|txt|js|css|sh))`")
_WRITTEN_BY_A_PERSON = {".streamlit/secrets.toml", ".streamlit/sources.toml"}  # named to be made, not shipped


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_file_the_pages_name_is_there(page):
    """A module, test or benchmark named as ``folder/name.py`` (from the checkout or from
    ``trace_explorer/``) exists, so that a file moved or renamed shows in the pages that name it."""
    named = set(_NAMED_FILE.findall(page.read_text(encoding="utf-8"))) - _WRITTEN_BY_A_PERSON
    missing = [name for name in named if not any((base / name).is_file() for base in (ROOT, ROOT / "trace_explorer"))]
    assert sorted(missing) == []


_CITATION = re.compile(r'(README|docs/[\w-]+\.md),\s+"([^"]+)"')
_CITING = ("app.py", "app_pages", "components", "trace_explorer", "tests", "scripts", "benchmarks", ".streamlit")


def citations() -> list[tuple[str, str, str]]:
    """``[(file, page, section)]``: each ``(docs/PAGE.md, "Section")`` a module, test or script cites."""
    found = []
    for top in _CITING:
        for path in sorted((ROOT / top).rglob("*") if (ROOT / top).is_dir() else [ROOT / top]):
            if path.suffix in (".py", ".sh", ".toml", ".js") and path.is_file() and path.name != "test_docs.py":
                for page, section in _CITATION.findall(path.read_text(encoding="utf-8")):
                    found.append((str(path.relative_to(ROOT)), page, " ".join(section.split())))
    return found


def test_every_section_the_code_cites_is_a_heading_of_its_page():
    found = citations()
    assert len(found) >= 30
    missing = []
    for where, page, section in found:
        path = ROOT / page
        headings = [anchor(line.lstrip("#").strip()) for _, line in split_blocks(path.read_text(encoding="utf-8"))[0]
                    if line.startswith("#")] if page != "README" and path.is_file() else []
        if not any(heading.startswith(anchor(section)) for heading in headings):  # "At scale" cites "At scale: …"
            missing.append(f"{where}: {page}, {section!r}")
    assert missing == []


def test_the_reference_lists_commands_and_shared_options_in_the_order_they_come():
    """Shared groups not in a set's order, which changes from one process to the next (hash seeds);
    every command the parser takes once, a command added without help too, a hidden one not."""
    parser = argparse.ArgumentParser(prog="tool")
    commands = parser.add_subparsers(dest="command")
    for name in ("one", "two"):
        sub = commands.add_parser(name, help=f"the {name} command")
        for title in ("zeta", "alpha", "mu"):
            sub.add_argument_group(title).add_argument(f"--{title}", help=f"the {title} option")
    commands.add_parser("three", aliases=["3"]).add_argument("--only", help="an option of its own")
    commands.add_parser("hidden", help=argparse.SUPPRESS)
    text = _cli_reference().reference(parser)
    assert [line for line in text.splitlines() if line.startswith("### tool ")] == [
        "### tool one", "### tool two", "### tool three"]  # without help too; an alias once; a hidden one not
    assert [line for line in text.splitlines() if line.startswith("#### ")] == ["#### Zeta", "#### Alpha", "#### Mu"]
    assert "Zeta: see [Shared options](#zeta)." in text
    assert "| `--zeta ZETA` | the zeta option |  |" in text


@pytest.mark.parametrize("cores", [1, 2, 8])
def test_the_reference_is_the_same_on_any_machine(cores, monkeypatch):
    """Nothing of the machine that writes it (``--workers``' help named this machine's default)."""
    module = _cli_reference()
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    monkeypatch.setattr("os.sched_getaffinity", lambda pid: set(range(cores)), raising=False)
    monkeypatch.setattr("os.cpu_count", lambda: cores)
    assert module.expected_page(page) == page


def test_the_cli_reference_is_written_from_the_parser():
    page = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    module = _cli_reference()
    assert module.expected_page(page) == page, (
        f"docs/cli.md is out of date with the parser: run `.venv/bin/{module.COMMAND}`")
    for name in ("list", "show", "export", "diff", "evidence", "used-by", "support", "ingest", "reindex",
                 "sync", "lint", "stats"):
        assert f"### trace-explorer {name}\n" in page
    assert "| `--limit N` | sessions per page (0: all; default 50) | `50` |" in page
