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
    """The app modules a module imports when loaded (not inside functions or under TYPE_CHECKING)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        for child in [node] if not isinstance(node, ast.Try) else node.body:
            if isinstance(child, ast.Import):
                targets.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    base = ".".join(package.split(".")[: len(package.split(".")) - child.level + 1] + [base])
                targets.add(base.strip("."))
                targets.update(f"{base}.{alias.name}".strip(".") for alias in child.names)
    return {target for target in targets if target in modules and target != name}


def test_every_app_package_is_in_the_architecture_layout():
    layout = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    block = layout.split("## Layout", 1)[1].split("```")[1]
    listed = set(re.findall(r"^  (\w+)/", block, flags=re.MULTILINE))
    packages = {path.parent.name for path in APP.glob("*/__init__.py")}
    assert packages == listed


def test_no_import_cycles_in_app():
    modules = _modules()
    graph = {name: _imports(path, name, modules) for name, path in modules.items()}
    state: dict[str, int] = {}  # 1 visiting, 2 done

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name]):
            # A package importing its own submodules is how packages re-export; not a cycle.
            if target.startswith(name + "."):
                continue
            if state.get(target) == 1:
                cycle = trail[trail.index(target) :] + [target] if target in trail else [name, target]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if target not in state:
                visit(target, trail + [target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])


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
