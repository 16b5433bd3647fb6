"""Every import points down: acp_tray's rooms (its packages and top-level modules) stand in layers,
and a module imports only from its own room or from a layer below its room's; no modules import
each other, directly or round a circle. Imports inside functions and under TYPE_CHECKING count too.
The order is written once, here; docs/architecture.md says the same, one line a layer."""

from __future__ import annotations

import ast
from collections.abc import Iterator
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
    ("files", "logs", "assets", "timer", "loopback", "agent_state", "local_time", "__init__"),
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


def _imports(module: str, path: Path) -> Iterator[tuple[int, str]]:
    """(line, the acp_tray module imported) for each import in `path`, however deep in the code."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([node.module] if node.module else [])])
            names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        yield from ((node.lineno, name) for name in dict.fromkeys(names) if name.split(".")[0] == "acp_tray")


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
