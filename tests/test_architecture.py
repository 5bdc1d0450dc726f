"""The package map holds: imports go models <- indexer <- search <- api, the service never
imports an interface, no module imports itself back through others, and test modules never
import each other, and no module of the product grows past 400 lines (docs/architecture.md)."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("models", "indexer", "search", "api")

# what each part may import from the project, besides itself
ALLOWED = {
    "models": set(),
    "indexer": {"models"},
    "search": {"models", "indexer"},
    "api.settings": {"models"},
    "api.setup": {"models", "api.settings"},  # agents' MCP configuration files
    "api.service": {"models", "indexer", "search", "api.settings"},
    "api.mcp": {"models", "indexer", "search", "api.settings", "api.service"},
    "api.http": {"models", "indexer", "search", "api.settings", "api.service", "api.mcp",
                 "api.client"},
    "api.cli": {"models", "indexer", "search", "api.settings", "api.service", "api.mcp",
                "api.http", "api.setup", "api.client"},
    "api.client": set(),  # the fast search client: the standard library alone
    "api.entry": {"api.client", "api.cli"},  # the `recall` command: one or the other
    "api": {"models", "indexer", "search", "api.settings", "api.service"},  # api/__init__.py
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def project_modules() -> dict[str, Path]:
    return {module_name(p): p for top in PACKAGES for p in (ROOT / top).rglob("*.py")}


def imports(path: Path, name: str, known: set[str]) -> Iterator[tuple[str, int]]:
    """The project modules a file imports (at any depth in the file), with line numbers."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parent, *([base] if base else [])])
            if base.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:  # `from pkg import module` imports the module
                sub = f"{base}.{alias.name}"
                yield (sub if sub in known else base), node.lineno


def part_of(module: str) -> str:
    """The entry of ALLOWED a module belongs to (the longest prefix)."""
    parts = module.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in ALLOWED:
            return ".".join(parts[:i])
    raise AssertionError(f"{module} belongs to no part of the map")


def graph() -> dict[str, set[str]]:
    modules = project_modules()
    known = set(modules)
    return {name: {m for m, _ in imports(path, name, known) if m != name}
            for name, path in modules.items()}


def test_imports_go_one_way() -> None:
    modules = project_modules()
    wrong = []
    for name, path in modules.items():
        part = part_of(name)
        for target, line in imports(path, name, set(modules)):
            other = part_of(target)
            if other != part and other not in ALLOWED[part]:
                wrong.append(f"{path.relative_to(ROOT)}:{line} ({part}) imports {target} ({other})")
    assert not wrong, "\n".join(wrong)


def test_no_import_cycles() -> None:
    edges = graph()
    cycles = [sorted(c) for c in strongly_connected(edges) if len(c) > 1]
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_test_modules_do_not_import_each_other() -> None:
    wrong = []
    for path in sorted((ROOT / "tests").glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.ImportFrom):
                target = (node.module or "").split(".")[-1] if node.level else (node.module or "")
                names = [target] + [a.name for a in node.names]
                if any(n.split(".")[-1].startswith("test_") for n in names if n):
                    wrong.append(f"{path.name}:{node.lineno}")
    assert not wrong, "test modules import test modules: " + ", ".join(wrong)


MAX_LINES = 400  # past it a module does more than one job: split it by what it does


def test_no_module_is_over_400_lines() -> None:
    long = {name: n for name, path in project_modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert long == {}


def test_the_checks_see_a_cycle_and_a_wrong_way_import() -> None:
    """The checks themselves can fail."""
    assert [sorted(c) for c in strongly_connected({"a": {"b"}, "b": {"a"}, "c": {"a"}})
            if len(c) > 1] == [["a", "b"]]
    assert "api.http" not in ALLOWED[part_of("api.service.core")]
    assert part_of("indexer.stores.keyword") == "indexer"


def strongly_connected(edges: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iteratively: the groups of modules that import each other."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                groups.append(group)
    return groups
