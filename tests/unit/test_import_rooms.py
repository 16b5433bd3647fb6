"""Every import points down: acp_tray's rooms (its packages and top-level modules) stand in layers,
and a module imports only from its own room or from a layer below its room's; no modules import
each other, directly or round a circle. Imports inside functions and under TYPE_CHECKING count too.
The order is written once, here; docs/architecture.md says the same, one line a layer.
And every import of acp_tray, in the code, its tests and benchmarks, names something that is there:
a module moved by one change and still imported by another is found here, not at a real start."""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

import acp_tray

# top to bottom; rooms on one line are beside each other and import none of each other
LAYERS: tuple[tuple[str, ...], ...] = (
    ("__main__",),
    ("cli",),
    ("window",),
    ("app",),
    ("doctor",),
    ("push",),
    ("agents", "state", "tray", "away", "autostart", "registry"),
    ("notifiers",),
    ("desktop", "presentation"),
    ("prefs", "events"),
    ("demo", "control"),
    ("protocol",),
    ("files", "logs", "assets", "timer", "backoff", "loopback", "agent_state", "local_time", "__init__"),
)
ROOT = Path(acp_tray.__file__).parent
LEVEL = {room: level for level, rooms in enumerate(LAYERS) for room in rooms}


def _modules() -> dict[str, Path]:
    """Every module of acp_tray by dotted name (a package by its own name)."""
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        parts = ("acp_tray", *path.relative_to(ROOT).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()


def _room(module: str) -> str:
    """The room of `acp_tray.X...`: X; the package's own `__init__` for `acp_tray` itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _statements(package: str, path: Path) -> Iterator[tuple[int, str, tuple[str, ...]]]:
    """(line, acp_tray module, names taken from it) for each import of acp_tray in `path`, however deep
    in the code: `import M` gives (M, ()), `from M import a, b` (relative ones resolved from `package`)
    gives (M, (a, b))."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        found: list[tuple[str, tuple[str, ...]]]
        if isinstance(node, ast.Import):
            found = [(alias.name, ()) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            found = [(base, tuple(alias.name for alias in node.names))]
        else:
            continue
        yield from ((node.lineno, name, names) for name, names in found if name.split(".")[0] == "acp_tray")


def _package(module: str, path: Path) -> str:
    """The package a module's relative imports start from: a package's own `__init__` is in it."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _imports(module: str, path: Path) -> Iterator[tuple[int, str]]:
    """(line, the acp_tray module imported) for each import in `path`, however deep in the code."""
    for line, base, names in _statements(_package(module, path), path):
        taken = [f"{base}.{name}" if f"{base}.{name}" in MODULES else base for name in names] or [base]
        yield from ((line, name) for name in dict.fromkeys(taken))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT.parent).as_posix()


def test_every_room_is_placed_once() -> None:
    rooms = {_room(module) for module in MODULES}
    listed = [room for rooms in LAYERS for room in rooms]
    assert len(listed) == len(set(listed)), "a room is listed twice"
    assert rooms == set(listed), f"not placed: {sorted(rooms - set(listed))}; gone: {sorted(set(listed) - rooms)}"


def test_no_module_imports_from_a_room_above_or_beside_its_own() -> None:
    wrong = []
    for module, path in MODULES.items():
        room = _room(module)
        for line, imported in _imports(module, path):
            other = _room(imported)
            if other != room and LEVEL[other] <= LEVEL[room]:
                where = "above" if LEVEL[other] < LEVEL[room] else "beside"
                wrong.append(f"{_rel(path)}:{line} imports {imported}: {other}/ stands {where} {room}/")
    assert not wrong, "imports that do not point down:\n" + "\n".join(wrong)


def test_no_modules_import_each_other() -> None:
    """No circle of modules, however long (Tarjan's strongly connected components)."""
    graph = {
        module: {name for _, name in _imports(module, path) if name in MODULES and name != module}
        for module, path in MODULES.items()
    }
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in graph[module]:
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            circle: list[str] = []
            while not circle or circle[-1] != module:
                circle.append(stack.pop())
            if len(circle) > 1:
                circles.append(" <-> ".join(sorted(circle)))

    for module in graph:
        if module not in index:
            visit(module)
    assert not circles, "modules that import each other:\n" + "\n".join(circles)


def _defined(path: Path) -> set[str]:
    """The names a module defines at its top level (under `if`, `try` and `with` too, not in a
    function or class): what `from it import name` can take."""
    names: set[str] = set()
    pending: list[ast.AST] = [ast.parse(path.read_text(encoding="utf-8"))]
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
            continue  # its body is its own scope
        if isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        pending.extend(ast.iter_child_nodes(node))
    return names


THERE = set(MODULES) | {module.rpartition(".")[0] for module in MODULES}  # packages without __init__.py too
DEFINED = {module: _defined(path) for module, path in MODULES.items()}


def _missing(base: str, names: tuple[str, ...]) -> str | None:
    """Why `import base` or `from base import names` cannot work; None when it can."""
    if base not in THERE:
        return f"{base} does not exist"
    defined = DEFINED.get(base, set())
    if {"*", "__getattr__"} & (defined | set(names)):
        return None  # a star import, or a module's own __getattr__, answers any name
    absent = [name for name in names if f"{base}.{name}" not in THERE and name not in defined]
    return f"{base} has no {', '.join(absent)} (no such module in it, nor a name at its top level)" if absent else None


def _python_files(folder: Path) -> Iterable[Path]:
    """Every .py file under `folder`, not following links (node_modules is one)."""
    for directory, subfolders, files in os.walk(folder):
        subfolders.sort()
        yield from (Path(directory, name) for name in sorted(files) if name.endswith(".py"))


def test_every_import_of_acp_tray_names_what_is_there() -> None:
    checkout = ROOT.parents[1]
    files = {path: _package(module, path) for module, path in MODULES.items()}
    files.update({path: "" for place in ("tests", "benchmarks") for path in _python_files(checkout / place)})
    wrong = []
    for path, package in files.items():
        for line, base, names in _statements(package, path):
            problem = _missing(base, names)
            if problem:
                wrong.append(f"{path.relative_to(checkout).as_posix()}:{line}: {problem}")
    assert not wrong, "imports of what is not there:\n" + "\n".join(wrong)
