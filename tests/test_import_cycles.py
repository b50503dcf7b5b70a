"""No import circle anywhere in ``referee/``: read from the source, every import counted --
module level, inside a function, and under ``TYPE_CHECKING`` (a circle of types is still two
modules that cannot be understood one without the other). A circle's modules are listed with
the names each takes from the next, so the message says where to cut."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "referee"


def _module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_of(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def _target(name: str) -> str | None:
    """The module of ours that ``name`` (a dotted import) loads, or None (not ours)."""
    modules = _modules()
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


def imports(module: str) -> dict[str, set[str]]:
    """The modules of ``referee`` that ``module`` imports, each with the names it takes."""
    modules = _modules()
    path = modules[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    out: dict[str, set[str]] = {}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                t = _target(alias.name)
                if t is not None:
                    out.setdefault(t, set()).add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                t = sub if sub in modules else _target(base)
                if t is not None:
                    out.setdefault(t, set()).add(alias.name)
    out.pop(module, None)
    return out


def circles() -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    graph = {m: sorted(imports(m)) for m in _modules()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for m in graph:
        if m not in index:
            visit(m)
    return sorted(found)


def _explain(group: list[str]) -> str:
    lines = []
    for m in group:
        for t, names in sorted(imports(m).items()):
            if t in group:
                lines.append(f"  {m} -> {t}: {', '.join(sorted(names))}")
    return "\n".join(lines)


def test_the_scan_sees_imports_of_every_kind() -> None:
    """The scan itself: module-level, function-level and TYPE_CHECKING imports all count."""
    assert "referee.turn" in imports("referee.commands")  # module level
    assert "referee.history" in imports("referee.commands")  # inside a function
    assert "referee.table" in imports("referee.turn")  # under TYPE_CHECKING
    assert "referee.service" in imports("referee.adapters")  # a package's __init__
    assert len(_modules()) > 80


#: Circles known and not cut yet (the list only shrinks; empty: the game registry, read by the
#: definitions and the catalogue, no longer names their definition model, engine contract or
#: analysis hooks -- each layer reads its own part of a spec typed).
KNOWN: list[list[str]] = []


def test_no_import_circle_in_referee() -> None:
    found = [g for g in circles() if g not in KNOWN]
    assert not found, "import circles:\n" + "\n".join(_explain(g) for g in found)


def test_the_known_circles_are_still_there() -> None:
    """A circle that was cut is taken off KNOWN."""
    found = circles()
    assert all(g in found for g in KNOWN), [g for g in KNOWN if g not in found]


@pytest.mark.parametrize("layer,never", [
    ("referee.rules", ("referee.service", "referee.store", "referee.adapters")),
    ("referee.store", ("referee.service", "referee.adapters")),
    ("referee.turn", ("referee.service",)),
    ("referee.commands", ("referee.service",)),
    ("referee.discipline", ("referee.service", "referee.commands")),
    ("referee.directives", ("referee.service",)),
])
def test_the_layers_import_downwards(layer: str, never: tuple[str, ...]) -> None:
    mods = [m for m in _modules() if m == layer or m.startswith(layer + ".")]
    bad = [(m, t) for m in mods for t in imports(m)
           if any(t == n or t.startswith(n + ".") for n in never)]
    assert not bad, bad
