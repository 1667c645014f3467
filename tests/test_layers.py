"""The package's folders are layers, and imports run only downward (docs/architecture.md, "The layers"):
model <- read <- network <- sources <- index <- store <- views <- analysis <- export <- cli.
Nothing in the core imports Streamlit or the app (``app.py``, ``app_pages/``, ``components/``), no
two modules import each other (directly or round a longer circle, lazily inside a function
too), and no class or module outgrows one job."""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "trace_explorer"
# Lowest first: a module may import from its own folder and from those before it.
LAYERS = ("model", "read", "network", "ask", "sources", "index", "reviews", "store", "live", "views", "analysis", "export",
          "cli")
APP_MODULES = ("streamlit", "components", "app_pages", "app")
MAX_CLASS_LINES = 200
MAX_MODULE_LINES = 400


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, name: str, is_package: bool) -> list[tuple[int, str]]:
    """``(line, absolute module)`` for every import in ``source`` (the module ``name``),
    including those inside functions; a ``from X import y`` also yields ``X.y`` (y may be a
    module)."""
    package = name.split(".") if is_package else name.split(".")[:-1]
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            out.append((node.lineno, module))
            out += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return out


def layer_of(module: str) -> str | None:
    """The folder a ``trace_explorer`` module lives in (None for the package itself)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "trace_explorer" else None


def violations(path: Path, source: str | None = None) -> list[str]:
    """What the module at ``path`` imports against the layering, as readable lines."""
    name = module_name(path)
    source = source if source is not None else path.read_text(encoding="utf-8")
    own = layer_of(name)
    out = []
    for line, module in imported_modules(source, name, path.name == "__init__.py"):
        top = module.split(".")[0]
        if top in APP_MODULES:
            out.append(f"{path.name}:{line}: the core imports {module}")
            continue
        if top != "trace_explorer":
            continue
        target = layer_of(module)
        if target is None:
            continue
        if target not in LAYERS:
            out.append(f"{path.name}:{line}: {module} is in no layer")
            continue
        if own is None:
            out.append(f"{path.name}:{line}: the package's own __init__ imports {module}")
        elif LAYERS.index(target) > LAYERS.index(own):
            out.append(f"{name}:{line}: {own}/ imports {module} from {target}/, a layer above it")
    return out


def core_modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_every_folder_of_the_package_is_a_layer():
    folders = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders == set(LAYERS)
    loose = {p.name for p in PACKAGE.glob("*.py")}
    assert loose == {"__init__.py"}


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: module_name(p))
def test_imports_run_only_downward(path):
    assert violations(path) == []


def test_the_check_catches_an_import_from_above_and_streamlit():
    model_module = PACKAGE / "model" / "session.py"
    assert violations(model_module, "from ..views.timeline import timeline_rows\n") == [
        "trace_explorer.model.session:1: model/ imports trace_explorer.views.timeline from views/, a layer above it",
        "trace_explorer.model.session:1: model/ imports trace_explorer.views.timeline.timeline_rows from views/, "
        "a layer above it",
    ]
    lazy = "def f():\n    import streamlit as st\n    from components import text\n"
    assert violations(PACKAGE / "sources" / "catalog.py", lazy) == [
        "catalog.py:2: the core imports streamlit", "catalog.py:3: the core imports components",
        "catalog.py:3: the core imports components.text"]
    # downward and sideways are fine
    assert violations(PACKAGE / "export" / "page.py",
                      "from ..views.dag.network import dag_html\nfrom .data import export_quads\n") == []


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: module_name(p))
def test_no_class_is_over_two_hundred_lines(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    long = [(n.name, n.end_lineno - n.lineno + 1) for n in ast.walk(tree)
            if isinstance(n, ast.ClassDef) and n.end_lineno - n.lineno + 1 > MAX_CLASS_LINES]
    assert long == []


@pytest.mark.parametrize("path", core_modules(), ids=lambda p: module_name(p))
def test_no_module_is_over_four_hundred_lines(path):
    assert len(path.read_text(encoding="utf-8").splitlines()) <= MAX_MODULE_LINES


def import_graph(sources: dict[str, str] | None = None) -> nx.DiGraph:
    """Module -> the package's modules it imports, at any depth of the code (a lazy import
    inside a function closes a circle as surely as one at the top). ``sources``: module name ->
    text, standing in for the package's files (for the check's own test)."""
    if sources is None:
        sources = {module_name(p): p.read_text(encoding="utf-8") for p in core_modules()}
    packages = {module_name(p) for p in core_modules() if p.name == "__init__.py"}
    graph = nx.DiGraph()
    for name, source in sources.items():
        for _, module in imported_modules(source, name, name in packages):
            if module in sources and module != name and module not in packages:
                graph.add_edge(name, module)
    return graph


def test_no_modules_import_each_other():
    assert sorted(nx.simple_cycles(import_graph())) == []


def test_the_circle_check_finds_a_lazy_circle():
    sources = {"trace_explorer.export.markdown": "from .support_section import support_markdown\n",
               "trace_explorer.export.support_section": "def f():\n    from .markdown import code_span\n"}
    assert [sorted(c) for c in nx.simple_cycles(import_graph(sources))] == [
        ["trace_explorer.export.markdown", "trace_explorer.export.support_section"]]
