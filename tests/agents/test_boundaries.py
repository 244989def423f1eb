"""agents/ and bidsdata/ are plain Python: they never import Django or the Django app; agents never imports
bidsdata (the dataset package builds on the agents, not the reverse)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

AGENTS = Path(__file__).resolve().parents[2] / "agents"
BIDSDATA = AGENTS.parent / "bidsdata"
FORBIDDEN = ("django", "annotations", "hedit_site", "channels", "rest_framework")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_no_module_under_agents_imports_django_or_the_app() -> None:
    offenders = {
        str(path.relative_to(AGENTS.parent)): sorted(m for m in imported_modules(path)
                                                     if m.split(".")[0] in FORBIDDEN)
        for path in AGENTS.rglob("*.py")
    }
    assert {k: v for k, v in offenders.items() if v} == {}
    assert len(offenders) > 10  # the walk really saw the package


def test_the_workflow_runs_with_django_absent() -> None:
    code = (
        "import sys, asyncio\n"
        "sys.modules['django'] = None\n"  # any import of django now fails
        "from agents.workflow import run_workflow\n"
        "state = asyncio.run(run_workflow('A red circle appears.'))\n"
        "assert state.status == 'succeeded', state.status\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=AGENTS.parent, capture_output=True, text=True,
                          timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_bidsdata_imports_no_django_and_agents_never_import_bidsdata() -> None:
    pure = {
        str(path.relative_to(AGENTS.parent)): sorted(m for m in imported_modules(path)
                                                     if m.split(".")[0] in FORBIDDEN)
        for path in BIDSDATA.rglob("*.py")
    }
    assert {k: v for k, v in pure.items() if v} == {}
    assert len(pure) > 5
    upward = {str(p.relative_to(AGENTS.parent)) for p in AGENTS.rglob("*.py")
              if any(m.split(".")[0] == "bidsdata" for m in imported_modules(p))}
    assert upward == set()
