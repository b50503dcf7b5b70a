"""A module is one idea, checked on the source instead of a cap on its length:

* every module under ``referee/`` opens with a docstring saying what it is for;
* every class is one piece: its methods form a single group when two are joined by a call of one
  from the other or by an attribute both use (LCOM4 = 1, Hitz and Montazeri's measure). A class
  whose methods fall into two groups holds two ideas and is two classes. Not measured: interfaces
  (``Protocol``, ``ABC``), records (pydantic models, dataclasses, named tuples, enums, exceptions),
  grammar visitors (lark calls one method per rule) and subclasses of library protocols
  (``Mapping``, ``random.Random``) -- their members are joined by the contract, not by each
  other; a method that touches no member (a hook returning a constant, a pure check) joins
  nothing and splits nothing;
* no private top-level definition is an orphan: each is used in its module or registered by a
  decorator there, so what a module keeps serves its idea.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "referee"
FILES = sorted(ROOT.rglob("*.py"))
EXEMPT_BASES = {"Protocol", "ABC", "Transformer", "Visitor", "Interpreter", "BaseModel",
                "NamedTuple", "TypedDict", "Enum", "StrEnum", "IntEnum", "Exception",
                "Random", "Mapping"}
ALL = "*"  # a method that hands ``self`` on whole (``return self``, ``vars(self)``) touches all


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


@cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _groups(names: list[str], joined: list[tuple[str, str]]) -> list[list[str]]:
    parent = {n: n for n in names}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in joined:
        parent[root(a)] = root(b)
    out: dict[str, list[str]] = {}
    for n in names:
        out.setdefault(root(n), []).append(n)
    return list(out.values())


def _decorated(node: ast.AST, name: str) -> bool:
    return any(ast.unparse(d).split("(")[0].split(".")[-1] == name
               for d in getattr(node, "decorator_list", []))


def _touches(fn: ast.AST) -> set[str]:
    """The members of ``self`` (or ``cls``) a method uses."""
    out: set[str] = set()
    nodes = list(ast.walk(fn))
    owned = {id(n.value) for n in nodes if isinstance(n, ast.Attribute)}
    for n in nodes:
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) \
                and n.value.id in ("self", "cls"):
            out.add(n.attr)
        elif isinstance(n, ast.Name) and n.id in ("self", "cls") and id(n) not in owned:
            out.add(ALL)
    if "__dict__" in out:
        out.add(ALL)
    return out


def class_groups(cls: ast.ClassDef) -> list[list[str]] | None:
    """The method groups of a measured class (None when it is not measured)."""
    bases = {ast.unparse(b).split("[")[0].split(".")[-1] for b in cls.bases}
    if bases & EXEMPT_BASES or _decorated(cls, "dataclass"):
        return None
    methods = {st.name: _touches(st) for st in cls.body
               if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef))
               and not _decorated(st, "staticmethod")}
    methods = {n: t for n, t in methods.items() if t}
    names = list(methods)
    joined = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]
              if ALL in methods[a] | methods[b] or b in methods[a] or a in methods[b]
              or (methods[a] & methods[b]) - set(names)]
    return _groups(names, joined) if len(names) > 1 else None


def split_classes(tree: ast.AST) -> list[str]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            groups = class_groups(node)
            if groups and len(groups) > 1:
                out.append(f"{node.name} (line {node.lineno}): "
                           + " | ".join(", ".join(g) for g in groups))
    return out


def orphans(tree: ast.Module) -> list[str]:
    private = {st.name: st for st in tree.body
               if isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
               and st.name.startswith("_") and not st.name.startswith("__")}
    out = []
    for name, node in private.items():
        if node.decorator_list:  # registered (a command table, a cache)
            continue
        used = any((isinstance(n, ast.Name) and n.id == name)
                   or (isinstance(n, ast.Attribute) and n.attr == name)
                   or (isinstance(n, ast.Constant) and n.value == name)
                   for st in tree.body if st is not node for n in ast.walk(st))
        if not used:
            out.append(name)
    return out


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_every_module_says_its_idea(path: Path) -> None:
    doc = ast.get_docstring(_tree(path))
    assert doc and doc.strip(), "no module docstring"


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_every_class_is_one_piece(path: Path) -> None:
    assert not split_classes(_tree(path))


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_no_private_definition_is_an_orphan(path: Path) -> None:
    assert not orphans(_tree(path))


def test_the_cohesion_checks_see_what_they_forbid() -> None:
    two_ideas = ast.parse(
        "class Table:\n"
        "    def deal(self): self.deck.pop(); self._burn()\n"
        "    def _burn(self): self.deck.pop()\n"
        "    def bank(self): return self.balances['a']\n"
        "    def credit(self, n): self.balances['a'] += n\n")
    assert split_classes(two_ideas) == ["Table (line 1): deal, _burn | bank, credit"]
    one = ast.parse(
        "class Table:\n"
        "    def deal(self): self.deck.pop(); self.bank()\n"
        "    def bank(self): return self.balances['a']\n"
        "    def me(self): return self\n"
        "    def rule(self): return 3\n"
        "class P(Protocol):\n"
        "    def a(self): self.x\n"
        "    def b(self): self.y\n")
    assert not split_classes(one)
    assert orphans(ast.parse("def _dead(): pass\ndef _used(): pass\nX = _used()\n"
                             "@command('a')\ndef _registered(): pass\n")) == ["_dead"]
