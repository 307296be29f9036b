"""The layout stays as ARCHITECTURE.md describes it: listed packages, no import cycles, small modules."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "app"
MAX_MODULE_LINES = 400
MAX_CLASS_LINES = 250


def _modules() -> dict[str, Path]:
    """Every module of the app by dotted name (migration scripts excluded: Alembic loads them by path)."""
    found = {}
    for path in APP.rglob("*.py"):
        if "migrations" in path.parts:
            continue
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found[name] = path
    return found


def _imports(path: Path, name: str, modules: dict[str, Path]) -> set[str]:
    """The app modules a module imports anywhere: at load, inside functions and under TYPE_CHECKING alike
    (an import deferred to a call still ties the two modules together)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for child in ast.walk(tree):
        if isinstance(child, ast.Import):
            targets.update(alias.name for alias in child.names)
        elif isinstance(child, ast.ImportFrom):
            base = child.module or ""
            if child.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - child.level + 1] + [base])
            targets.add(base.strip("."))
            targets.update(f"{base}.{alias.name}".strip(".") for alias in child.names)
    return {target for target in targets if target in modules and target != name}


def _graph() -> dict[str, set[str]]:
    """Each app module's imports of other app modules (a package's own submodules left out: that is how a
    package re-exports, not a cycle)."""
    modules = _modules()
    return {
        name: {target for target in _imports(path, name, modules) if not target.startswith(name + ".")}
        for name, path in modules.items()
    }


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of the graph: each strongly connected group of two or more modules (Tarjan)."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(name: str) -> None:
        order[name] = low[name] = len(order)
        stack.append(name)
        for target in sorted(graph[name]):
            if target not in order:
                visit(target)
                low[name] = min(low[name], low[target])
            elif target in stack:
                low[name] = min(low[name], order[target])
        if low[name] == order[name]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == name:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for name in sorted(graph):
        if name not in order:
            visit(name)
    return found


def test_every_app_package_is_in_the_architecture_layout():
    layout = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = layout.split("## Layout", 1)[1].split("```")[1]
    listed = set(re.findall(r"^  (\w+)/", block, flags=re.MULTILINE))
    packages = {path.parent.name for path in APP.glob("*/__init__.py")}
    assert packages == listed


def test_no_import_cycles_in_app():
    assert _cycles(_graph()) == []


def test_the_language_layer_imports_nothing_else_from_the_app():
    graph = _graph()
    outside = {
        f"{name} -> {target}"
        for name, targets in graph.items()
        if name.startswith("app.language")
        for target in targets
        if not target.startswith("app.language")
    }
    assert outside == set()


def test_the_search_tools_path_reads_no_question():
    graph = _graph()
    reached, todo = set(), ["app.search.index"]
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += graph[name]
    readers = {"app.assistant.extractive.comparison_split", "app.assistant.extractive.lesson_titles"}
    assert not reached & readers and not any(name.startswith("app.assistant") for name in reached)


def test_the_cycle_check_finds_a_cycle_through_a_deferred_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


def test_modules_and_classes_stay_small():
    too_long = []
    for name, path in _modules().items():
        source = path.read_text(encoding="utf-8")
        if source.count("\n") > MAX_MODULE_LINES:
            too_long.append(f"{name}: {source.count(chr(10))} lines")
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef) and node.end_lineno - node.lineno + 1 > MAX_CLASS_LINES:
                too_long.append(f"{name}.{node.name}: {node.end_lineno - node.lineno + 1} lines")
    assert not too_long
