"""The test suite's own shape: no test module imports another test module or a conftest.py.

Helpers and fixtures that several modules share live in tests/support (fixtures registered as
plugins in tests/conftest.py); a test module that imported another would run its module-level
code and carry its fixtures along by accident.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.repo import ROOT

TESTS = ROOT / "tests"


def python_files() -> list[Path]:
    return [p for p in TESTS.rglob("*.py") if "node_modules" not in p.parts]


def forbidden(module: str) -> bool:
    """A test module (tests/**/test_*.py) or a conftest, by its dotted name."""
    last = module.rsplit(".", 1)[-1]
    return module.startswith("tests.") and (last.startswith("test_") or last == "conftest")


def imported_modules(tree: ast.AST) -> list[str]:
    """Every module an import statement names, `from tests.x import test_y` as `tests.x.test_y` too."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
            found += [f"{node.module}.{alias.name}" for alias in node.names]
    return found


def test_no_test_module_imports_another_test_module_or_a_conftest() -> None:
    offenders = []
    for path in python_files():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        offenders += [f"{path.relative_to(ROOT)}: {name}" for name in imported_modules(tree) if forbidden(name)]
    assert not offenders, "move what is shared into tests/support:\n" + "\n".join(offenders)


def test_the_check_sees_both_forms_of_import() -> None:
    tree = ast.parse("import tests.unit.test_x\nfrom tests.integration import test_y\nfrom tests.conftest import z\n")
    assert [name for name in imported_modules(tree) if forbidden(name)] == [
        "tests.unit.test_x",
        "tests.integration.test_y",
        "tests.conftest",
    ]
