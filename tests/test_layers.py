"""The package layers: no import cycle between packages (imports inside functions count too: deferring
one only hides it), and nothing below the MCP surface imports it."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PRODUCT = ("mcp_server", "sandbox", "tools")


def _package(module: str) -> str | None:
    """mcp_server, sandbox, or tools.<first level> (tools/accuracy.py is tools.accuracy)."""
    parts = module.split(".")
    if parts[0] not in PRODUCT:
        return None
    if parts[0] == "tools":
        return ".".join(parts[:2]) if len(parts) > 1 else None
    return parts[0]


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = module.split(".") if is_package else module.split(".")[:-1]
                anchor = anchor[: len(anchor) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names |= {base} | {f"{base}.{alias.name}" for alias in node.names}
    return names


def package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for top in PRODUCT:
        for path in (ROOT / top).rglob("*.py"):
            module = _module_of(path)
            source = _package(module) if module != "tools" else None
            if source is None:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for name in _imported(tree, module, path.name == "__init__.py"):
                target = _package(name)
                # `from tools import thresholds` names tools.thresholds; a bare `tools` is no package here
                if target is not None and target != source:
                    graph.setdefault(source, set()).add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected component of more than one package."""
    order, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(node: str) -> None:
        order[node] = low[node] = len(order)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph.get(node, ()):
            if nxt not in order:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], order[nxt])
        if low[node] == order[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def test_no_import_cycle_between_packages():
    assert _cycles(package_graph()) == []


def test_nothing_below_the_mcp_surface_imports_it():
    graph = package_graph()
    assert [p for p, targets in graph.items() if "mcp_server" in targets and p != "mcp_server"] == []


def test_the_check_sees_a_cycle_and_an_import_inside_a_function():
    tree = ast.parse("def f():\n    from tools.fixes import suggest_fix\n")
    assert "tools.fixes.suggest_fix" in _imported(tree, "tools.diagnosis.x", False)
    assert _cycles({"a": {"b"}, "b": {"a"}, "c": {"a"}}) == [["a", "b"]]
