"""Dependencies between packages point one way (README, Architecture): the import contract, read from the source.

The graph's nodes are the top-level packages (``agents``, ``bidsdata``, ``annotations``, ``hedit_site``) and,
inside ``agents``, ``bidsdata`` and ``annotations``, each first-level subpackage or module (``annotations.runs``,
``annotations.records``, ``agents.llm``...); an edge is any import from one node's files of another node, at
module level or inside a function (a deferred import is a dependency all the same), relative imports resolved.
Nothing is imported: the files are parsed with ``ast``, so the check needs no Django and sees every file.

The contract: no cycle among the nodes (nor among the top-level packages); ``agents`` and ``bidsdata`` never import
``annotations``, ``hedit_site`` or Django; ``agents`` never imports ``bidsdata``; and inside ``annotations`` the
shared pieces sit below the concerns (they import no concern). A lower concern reaches a higher one through
``annotations.hooks``, registered in ``AnnotationsConfig.ready``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("agents", "bidsdata", "annotations", "hedit_site")
SPLIT = frozenset({"agents", "bidsdata", "annotations"})  # their first-level children are nodes of their own
PURE = ("agents", "bidsdata")  # plain Python: no Django, no portal
DJANGO = frozenset({"django", "rest_framework", "channels", "django_tasks", "drf_spectacular", "django_htmx"})
SHARED = frozenset({  # annotations' pieces below the concerns (README: Architecture)
    "annotations", "annotations.models", "annotations.access", "annotations.selectors", "annotations.records",
    "annotations.errors", "annotations.limits", "annotations.review_rules", "annotations.corrections",
    "annotations.hooks",
})
CONCERNS = frozenset({
    "annotations.runs", "annotations.history", "annotations.review", "annotations.exports", "annotations.validation",
    "annotations.llm", "annotations.api", "annotations.datasets", "annotations.evaluation", "annotations.usage",
})


@dataclass(frozen=True)
class Import:
    """One imported module, where it is imported."""

    module: str
    where: str  # path:line


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_module(name: str) -> bool:
    base = ROOT.joinpath(*name.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _imports_of(path: Path) -> list[Import]:
    """Every module *path* imports; ``from package import module`` names the module, not the package."""
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: list[Import] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        where = f"{path.relative_to(ROOT)}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Import):
            found += [Import(alias.name, where) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            if source == "__future__":
                continue
            for alias in node.names:
                name = f"{source}.{alias.name}"
                found.append(Import(name if _is_module(name) else source, where))
    return found


def node_of(module: str) -> str | None:
    """The graph node *module* belongs to; None outside the project's packages."""
    parts = module.split(".")
    if parts[0] not in PACKAGES:
        return None
    return ".".join(parts[:2]) if parts[0] in SPLIT and len(parts) > 1 else parts[0]


def project_imports() -> dict[str, list[Import]]:
    """Every file's imports, by the node the file belongs to."""
    imports: dict[str, list[Import]] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            imports.setdefault(node_of(_module_name(path)) or package, []).extend(_imports_of(path))
    return imports


Graph = Mapping[str, Mapping[str, str]]  # node -> {imported node: one place it is imported}


def graph_of(imports: Mapping[str, list[Import]], *, top_level: bool = False) -> dict[str, dict[str, str]]:
    """The nodes' graph (*top_level*: the packages' graph), each edge with one place that makes it."""
    graph: dict[str, dict[str, str]] = {}
    for source, found in imports.items():
        source = source.split(".")[0] if top_level else source
        edges = graph.setdefault(source, {})
        for imported in found:
            target = node_of(imported.module)
            if target is not None and top_level:
                target = target.split(".")[0]
            if target is not None and target != source:
                edges.setdefault(target, imported.where)
    return graph


def find_cycle(graph: Graph) -> list[str] | None:
    """A cycle of *graph* as its path (first node repeated at the end), or None."""
    done: set[str] = set()
    path: list[str] = []
    on_path: set[str] = set()

    def visit(node: str) -> list[str] | None:
        path.append(node)
        on_path.add(node)
        for target in sorted(graph.get(node, {})):
            if target in on_path:
                return [*path[path.index(target):], target]
            if target not in done:
                cycle = visit(target)
                if cycle:
                    return cycle
        path.pop()
        on_path.discard(node)
        done.add(node)
        return None

    for start in sorted(graph):
        if start not in done:
            cycle = visit(start)
            if cycle:
                return cycle
    return None


def describe(cycle: list[str], graph: Graph) -> str:
    return "import cycle: " + " -> ".join(cycle) + "\n" + "\n".join(
        f"  {a} -> {b} at {graph[a][b]}" for a, b in pairwise(cycle))


def _offending(imports: Iterable[Import], forbidden: Iterable[str]) -> list[str]:
    roots = set(forbidden)
    return [f"{i.where} imports {i.module}" for i in imports if i.module.split(".")[0] in roots]


IMPORTS = project_imports()


def test_the_graph_has_the_project_nodes() -> None:
    # A graph read wrongly (a path, a parse) would pass every contract below with no edges at all.
    graph = graph_of(IMPORTS)
    assert {"annotations.runs", "annotations.datasets", "agents.llm", "bidsdata.composition"} <= set(graph)
    assert "annotations.runs" in graph["annotations.datasets"]


def test_no_import_cycle_between_packages_or_subpackages() -> None:
    for graph in (graph_of(IMPORTS), graph_of(IMPORTS, top_level=True)):
        cycle = find_cycle(graph)
        assert cycle is None, describe(cycle, graph)


def test_agents_and_bidsdata_use_neither_the_portal_nor_django() -> None:
    problems = [problem for node, found in IMPORTS.items() if node.split(".")[0] in PURE
                for problem in _offending(found, {"annotations", "hedit_site", *DJANGO})]
    assert not problems, "\n".join(problems)


def test_agents_do_not_import_bidsdata() -> None:
    problems = [problem for node, found in IMPORTS.items() if node.split(".")[0] == "agents"
                for problem in _offending(found, {"bidsdata"})]
    assert not problems, "\n".join(problems)


def test_the_shared_pieces_of_annotations_import_no_concern() -> None:
    problems = [f"{i.where} imports {i.module}" for node in SHARED for i in IMPORTS.get(node, [])
                if node_of(i.module) in CONCERNS]
    assert not problems, "\n".join(problems)


def test_a_cycle_is_found_and_named_with_its_path() -> None:
    graph = {"a": {"b": "a.py:1"}, "b": {"c": "b.py:2"}, "c": {"a": "c.py:3"}, "d": {"a": "d.py:4"}}
    cycle = find_cycle(graph)
    assert cycle == ["a", "b", "c", "a"]
    assert "c -> a at c.py:3" in describe(cycle, graph)
    assert find_cycle({"a": {"b": "x"}, "b": {}}) is None
