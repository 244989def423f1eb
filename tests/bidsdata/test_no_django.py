"""tests/bidsdata/ tests the pure package bidsdata/; none of its modules may lean on Django.

bidsdata/ runs without Django, so its tests must too: a test here that imported Django, the portal's
annotations app or a database fixture would hide a dependency the package is not allowed to have. The check
reads the source with `ast` (nothing is imported) and follows the `tests.*` helpers the modules import.
"""

from __future__ import annotations

import ast
import logging
from pathlib import Path

logger = logging.getLogger(__name__)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
FORBIDDEN_PACKAGES = frozenset({"django", "annotations", "rest_framework", "channels", "pytest_django"})
DJANGO_FIXTURES = frozenset({
    "db", "client", "settings", "django_db", "transactional_db", "admin_client", "async_client",
    "django_user_model", "django_db_blocker", "live_server", "rf", "user", "other_user",
})


def _imported_modules(tree: ast.AST) -> set[str]:
    """Every absolute module a file imports; `from __future__ import annotations` names no module."""
    modules: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            modules.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 and node.module != "__future__":
            modules.add(node.module)
    return modules


def _django_uses(tree: ast.AST) -> set[str]:
    """Database/Django fixtures asked for as arguments, and `django_db` marks."""
    uses: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            uses.update(arg.arg for arg in node.args.args + node.args.kwonlyargs if arg.arg in DJANGO_FIXTURES)
        elif isinstance(node, ast.Attribute) and node.attr in {"django_db", "transactional_db"}:
            uses.add(f"mark.{node.attr}")
        elif isinstance(node, ast.Constant) and node.value == "django_db":  # usefixtures("django_db") and the like
            uses.add("django_db")
    return uses


def _test_helper_file(module: str) -> Path | None:
    """The file of a `tests.*` helper module, so the helpers a test imports are held to the same rule."""
    if not module.startswith("tests."):
        return None
    base = ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _problems(path: Path, seen: set[Path]) -> list[str]:
    if path in seen:
        return []
    seen.add(path)
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    where = path.relative_to(ROOT)
    problems = [f"{where} imports {module}" for module in sorted(_imported_modules(tree))
                if module.split(".")[0] in FORBIDDEN_PACKAGES]
    problems += [f"{where} uses {use}" for use in sorted(_django_uses(tree))]
    for module in sorted(_imported_modules(tree)):
        helper = _test_helper_file(module)
        if helper is not None:
            problems += _problems(helper, seen)
    return problems


def test_no_module_under_tests_bidsdata_uses_django() -> None:
    files = sorted(HERE.rglob("*.py"))
    assert len(files) > 1
    seen: set[Path] = {Path(__file__).resolve()}  # this file names the forbidden things it looks for
    problems = [problem for path in files for problem in _problems(path, seen)]
    logger.debug("checked %d files for Django", len(seen))
    assert not problems, "\n".join(problems)
