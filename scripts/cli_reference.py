"""The command-line reference in ``docs/cli.md``, written from the ``trace-explorer`` parser itself
(``trace_explorer.cli.main``), so that it cannot drift from the commands and options there are.

    .venv/bin/python scripts/cli_reference.py            # write the reference into docs/cli.md
    .venv/bin/python scripts/cli_reference.py --check    # exit 1 when docs/cli.md is out of date

Only the block between ``BEGIN`` and ``END`` in the page is written; the rest of the page is
prose kept by hand. The block lists every command (its help, description, usage and options),
and an option group that several commands share word for word (the source options, the list's
filters) once, under "Shared options". ``tests/test_docs.py`` holds the committed page to this
script's output. Usage lines are built here, not by argparse's formatter, whose wrapping
follows the terminal's width and whose wording changes between Python versions.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "cli.md"
COMMAND = "python scripts/cli_reference.py"
BEGIN = f"<!-- BEGIN REFERENCE: written by `{COMMAND}` from the parser; edit the parser, not this block -->"
END = "<!-- END REFERENCE -->"
WIDTH = 100  # usage lines are wrapped at this many characters
_PLAIN = ("positional arguments", "options", "optional arguments")  # argparse's own group titles


def command_parser() -> argparse.ArgumentParser:
    """The ``trace-explorer`` parser, as the command builds it."""
    if str(ROOT) not in sys.path:  # run as a script from anywhere
        sys.path.insert(0, str(ROOT))
    from trace_explorer.cli.main import _parser
    return _parser()


def reference(parser: argparse.ArgumentParser) -> str:
    """The reference block's Markdown (without the markers) for ``parser``: an overview table of
    the commands, the option groups shared by several commands, then each command."""
    commands = _subcommands(parser)
    groups = {name: _groups(sub) for name, (_, sub) in commands.items()}
    seen: dict[tuple[str, str], list[str]] = {}
    for name, found in groups.items():
        for title, rows in found:
            if title not in _PLAIN:
                seen.setdefault((title, rows), []).append(name)
    shared = [key for key, users in seen.items() if len(users) > 1]  # in the order they first come
    out = ["## Every command and option", "",
           f"Generated from the parser by `{COMMAND}`; `trace-explorer COMMAND --help` prints the same.", "",
           "| command | what it does |", "|---|---|"]
    out += [f"| [`{name}`](#{_anchor(sub.prog)}) | {_cell(help_text)} |" for name, (help_text, sub) in commands.items()]
    if shared:
        out += ["", "### Shared options", ""]
        for title, rows in shared:
            users = ", ".join(f"`{user}`" for user in seen[(title, rows)])
            out += [f"#### {_title(title)}", "", f"Taken by {users}.", "", rows, ""]
        out.pop()
    for name, (help_text, sub) in commands.items():
        out += ["", f"### {sub.prog}"]
        for text in (help_text, sub.description):
            out += ["", _sentence(text)] if text else []
        out += ["", "```text", _usage(sub), "```"]
        for title, rows in groups[name]:
            if (title, rows) in shared:
                out += ["", f"{_title(title)}: see [Shared options](#{_anchor(_title(title))})."]
            else:
                out += ["", f"{_title(title)}:", "", rows]
    return "\n".join(out) + "\n"


def render(page: str, block: str) -> str:
    """``page`` with the text between its markers replaced by ``block`` (the markers and the
    block appended at the end when the page has none)."""
    start, end = page.find(BEGIN), page.find(END)
    if start < 0 or end < start:
        return page.rstrip("\n") + f"\n\n{BEGIN}\n{block}{END}\n"
    return page[:start] + f"{BEGIN}\n{block}{END}" + page[end + len(END):]


def expected_page(page: str) -> str:
    """What ``docs/cli.md`` (whose text is ``page``) should hold: its prose with today's reference."""
    return render(page, reference(command_parser()))


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, tuple[str, argparse.ArgumentParser]]:
    """``{name: (help, parser)}`` of the parser's subcommands, in the order they were added: each
    once (not again under an alias), and none whose help is suppressed."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            # a command added without help has no entry here
            helps = {choice.dest: choice.help for choice in action._choices_actions}
            found, seen = {}, set()
            for name, sub in action.choices.items():
                if id(sub) not in seen and helps.get(name) is not argparse.SUPPRESS:
                    found[name] = (helps.get(name) or "", sub)
                seen.add(id(sub))
            return found
    return {}


def _groups(parser: argparse.ArgumentParser) -> list[tuple[str, str]]:
    """``[(title, table)]``: each non-empty option group of ``parser`` as a Markdown table."""
    formatter = parser._get_formatter()
    found = []
    for group in parser._action_groups:
        actions = [action for action in group._group_actions
                   if action.help is not argparse.SUPPRESS and not isinstance(action, argparse._HelpAction)]
        if actions:
            rows = ["| option | what it does | default |", "|---|---|---|"]
            rows += [f"| `{_invocation(formatter, action)}` | {_cell(_help(formatter, action))} | {_default(action)} |"
                     for action in actions]
            found.append((group.title or "options", "\n".join(rows)))
    return found


def _invocation(formatter: argparse.HelpFormatter, action: argparse.Action) -> str:
    """``--limit N``, ``--format {table,json,csv}``, ``PATH ...``: how the option is written."""
    if not action.option_strings:
        return formatter._format_args(action, action.dest)
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    metavar = formatter._format_args(action, action.dest.upper())
    return ", ".join(f"{flag} {metavar}" for flag in action.option_strings)


def _usage(parser: argparse.ArgumentParser) -> str:
    """``usage: trace-explorer list [PATH ...] [--demo] ...``, wrapped at ``WIDTH`` between options."""
    formatter = parser._get_formatter()
    parts = []
    for action in parser._actions:
        if action.help is argparse.SUPPRESS or isinstance(action, argparse._HelpAction):
            continue
        if not action.option_strings:
            parts.append(formatter._format_args(action, action.dest))
            continue
        written = action.option_strings[0]
        if action.nargs != 0:
            written += " " + formatter._format_args(action, action.dest.upper())
        parts.append(written if action.required else f"[{written}]")
    lead = f"usage: {parser.prog} "
    text = " ".join(part.replace(" ", "\u00a0") for part in parts)  # an option is never cut in two
    return textwrap.fill(text, WIDTH, initial_indent=lead, subsequent_indent=" " * len(lead),
                         break_on_hyphens=False, break_long_words=False).replace("\u00a0", " ")


def _help(formatter: argparse.HelpFormatter, action: argparse.Action) -> str:
    text = formatter._expand_help(action) if action.help else ""
    return text + (" (required)" if action.required and action.option_strings else "")


def _default(action: argparse.Action) -> str:
    """The default worth printing: a plain value that is not None, False or empty."""
    value = action.default
    if action.required or value in (None, False, "", []) or value is argparse.SUPPRESS:
        return ""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return ""
    return f"`{value}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _sentence(text: str) -> str:
    text = " ".join(text.split())
    return text[:1].upper() + text[1:] + ("" if text.endswith((".", ")", "?", "!")) else ".")


def _title(title: str) -> str:
    """A group's title as a heading: argparse's own titles (which vary between Python versions) as
    "Arguments" and "Options"."""
    if title in _PLAIN:
        return "Arguments" if title == "positional arguments" else "Options"
    return title[:1].upper() + title[1:]


def _anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but ``-`` and ``_`` dropped,
    spaces made hyphens."""
    kept = "".join(char for char in heading.lower() if char.isalnum() or char in " -_")
    return kept.replace(" ", "-")


def main(argv: list[str] | None = None) -> int:
    """Write the reference into ``docs/cli.md``, or with ``--check`` say whether it is current
    (exit 1, naming the command that updates it, when it is not)."""
    options = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    options.add_argument("--check", action="store_true", help="only check that docs/cli.md is current")
    check = options.parse_args(argv).check
    page = PAGE.read_text(encoding="utf-8")
    wanted = expected_page(page)
    if check:
        if wanted != page:
            print(f"docs/cli.md is out of date with the parser: run `{COMMAND}`", file=sys.stderr)
            return 1
        return 0
    if wanted != page:
        PAGE.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
