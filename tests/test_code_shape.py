"""The code's shape, checked on the source so it stays that way:

(How big a module may be is not a number: tests/test_cohesion.py checks that each is one idea.)

* no write to an object's ``__dict__`` or to pydantic's ``__pydantic_fields_set__`` /
  ``__pydantic_extra__`` anywhere under ``referee/`` (speed comes from the design);
* in the pipeline (``referee/service*``, ``referee/commands.py``), the adapters and the command
  line: no comparison with a game id -- they ask the registry and the engine's capabilities;
* in all of ``referee/``: no game id outside its own folder (``referee/games/GAME/``) and the
  registry, no import of a game's folder from outside it, no ``getattr`` on an engine, no
  private member of another module (the known exceptions are listed, with why, and only
  shrink);
* nothing in the repository cites a directory outside it (the rules are ``docs/rules.md``, the
  contract ``docs/contracts.md``, the parser's corpus ``tests/corpus/``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from referee.games import BUILTIN as GAME_IDS

ROOT = Path(__file__).resolve().parents[1] / "referee"
FILES = sorted(ROOT.rglob("*.py"))
PIPELINE = [p for p in FILES if p.name.startswith("service") or p.name in ("commands.py",
                                                                            "cli.py")
            or "adapters" in p.parts]
MUTATORS = ("update", "setdefault", "pop", "popitem", "clear", "__setitem__", "__delitem__")
INTERNALS = ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def _writes_internals(tree: ast.AST) -> list[int]:
    out = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for t in targets:
            base = t.value if isinstance(t, ast.Subscript) else t
            if isinstance(base, ast.Attribute) and base.attr in INTERNALS:
                out.append(node.lineno)
        if isinstance(node, ast.Call):
            f = node.func
            # x.__dict__.update(...) / .setdefault / .pop / .clear
            if (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Attribute)
                    and f.value.attr in INTERNALS and f.attr in MUTATORS):
                out.append(node.lineno)
            # setattr(x, "__dict__", ...) / object.__setattr__(x, "__dict__", ...)
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in ("setattr", "__setattr__") and any(
                    isinstance(a, ast.Constant) and a.value in INTERNALS for a in node.args):
                out.append(node.lineno)
    return out


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_no_write_to_object_internals(path: Path) -> None:
    assert not _writes_internals(ast.parse(path.read_text(encoding="utf-8")))


def test_the_internals_check_sees_writes() -> None:
    for src in ("ev.__dict__ = {}", "ev.__dict__['a'] = 1", "ev.__dict__.update(x)",
                "object.__setattr__(ev, '__dict__', d)", "m.__pydantic_fields_set__ = set()"):
        assert _writes_internals(ast.parse(src)), src
    assert not _writes_internals(ast.parse("d = ev.__dict__\nstate = dict(vars(self))\n"
                                           "x = {k: v for k, v in self.__dict__.items()}"))


def _game_comparisons(tree: ast.AST) -> list[int]:
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Constant) and side.value in GAME_IDS:
                    out.append(node.lineno)
                if isinstance(side, (ast.Tuple, ast.List, ast.Set)) and any(
                        isinstance(e, ast.Constant) and e.value in GAME_IDS for e in side.elts):
                    out.append(node.lineno)
    return out


def _engine_getattr(tree: ast.AST) -> list[int]:
    out = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("getattr", "hasattr")
                and node.args and "engine" in ast.unparse(node.args[0])):
            out.append(node.lineno)
    return out


@pytest.mark.parametrize("path", PIPELINE, ids=_rel)
def test_the_pipeline_never_names_a_game(path: Path) -> None:
    assert not _game_comparisons(ast.parse(path.read_text(encoding="utf-8"))), "compares a game id"


def test_the_pipeline_checks_see_what_they_forbid() -> None:
    assert _game_comparisons(ast.parse('if game == "deuces": pass'))
    assert _game_comparisons(ast.parse('x = t.game in ("omaha", "seven")'))
    assert _engine_getattr(ast.parse('getattr(table.engine, "bonus_area", None)'))
    assert not _game_comparisons(ast.parse("if game not in GAME_IDS: pass"))


# --- the guard over all of referee/ ---------------------------------------------------------

#: Modules that still spell game ids outside the games' folders: none (the list only shrinks).
GAME_ID_EXCEPTIONS: tuple[str, ...] = ()
#: Modules that still use another module's private members: none (the list only shrinks).
PRIVATE_EXCEPTIONS: tuple[str, ...] = ()


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of string constants that are docstrings or bare string statements."""
    return {id(n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
            and isinstance(n.value.value, str)}


def _own_game(rel: str) -> str | None:
    """The game whose folder ``rel`` (relative to referee/) is in, if any."""
    parts = rel.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "games" else None


def _game_ids_named(tree: ast.AST, rel: str) -> list[tuple[int, str]]:
    """String constants (not docstrings) naming a game other than the folder's own: the game
    id itself or one of its catalogue keys (``"seven.no_definition"``)."""
    if rel == "games/__init__.py":  # the registry: the built-in games' list
        return []
    docs = _docstrings(tree)
    own = _own_game(rel)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in docs:
            for game in GAME_IDS:
                if game != own and (node.value == game or node.value.startswith(game + ".")):
                    out.append((node.lineno, node.value))
    return out


def _foreign_game_imports(tree: ast.AST, rel: str) -> list[tuple[int, str]]:
    """Imports of a game's folder from outside it (the registry finds the folders by id)."""
    own = _own_game(rel)
    out = []
    for node in ast.walk(tree):
        names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                 else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
        for name in names:
            parts = name.split(".")
            if parts[:2] == ["referee", "games"] and len(parts) > 2 and parts[2] != own:
                out.append((node.lineno, name))
    return out


def _private_uses(tree: ast.AST) -> list[tuple[int, str]]:
    """Another module's private member: ``from referee.x import _y``, or ``obj._y`` on anything
    but ``self``, ``cls`` or ``super()``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("referee"):
            out += [(node.lineno, a.name) for a in node.names
                    if a.name.startswith("_") and not a.name.startswith("__")]
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                and not node.attr.startswith("__"):
            base = node.value
            if isinstance(base, ast.Name) and base.id in ("self", "cls"):
                continue
            if isinstance(base, ast.Call) and getattr(base.func, "id", "") == "super":
                continue
            out.append((node.lineno, ast.unparse(node)))
    return out


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_no_game_id_outside_its_own_folder_and_the_registry(path: Path) -> None:
    rel = _rel(path)
    if rel.startswith(GAME_ID_EXCEPTIONS):
        pytest.skip("known exception (GAME_ID_EXCEPTIONS)")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert not _game_ids_named(tree, rel)
    assert not _foreign_game_imports(tree, rel), "imports another game's folder"


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_no_engine_is_probed_with_getattr(path: Path) -> None:
    assert not _engine_getattr(ast.parse(path.read_text(encoding="utf-8"))), "getattr on an engine"


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_no_private_member_of_another_module_is_used(path: Path) -> None:
    if _rel(path) in PRIVATE_EXCEPTIONS:
        pytest.skip("known exception (PRIVATE_EXCEPTIONS)")
    assert not _private_uses(ast.parse(path.read_text(encoding="utf-8")))


def test_the_known_exceptions_are_still_needed() -> None:
    """An exception that no longer applies is taken off its list (the lists only shrink)."""
    for prefix in GAME_ID_EXCEPTIONS:
        hits = [p for p in FILES if _rel(p).startswith(prefix)
                and _game_ids_named(ast.parse(p.read_text(encoding="utf-8")), _rel(p))]
        assert hits, f"{prefix} names no game id any more: drop it from the exceptions"
    for rel in PRIVATE_EXCEPTIONS:
        assert _private_uses(ast.parse((ROOT / rel).read_text(encoding="utf-8"))), rel


def test_the_guard_sees_what_it_forbids() -> None:
    assert _game_ids_named(ast.parse('x = "deuces"'), "guide.py")
    assert _game_ids_named(ast.parse('text("seven.no_definition")'), "games/omaha/engine.py")
    assert not _game_ids_named(ast.parse('text("seven.no_definition")'), "games/seven/engine.py")
    assert not _game_ids_named(ast.parse('"""About omaha."""\n"omaha"'), "games/omaha/spec.py")
    assert not _game_ids_named(ast.parse('"""A docstring: deuces."""'), "guide.py")
    assert not _game_ids_named(ast.parse('BUILTIN = ("omaha",)'), "games/__init__.py")
    assert _foreign_game_imports(ast.parse("from referee.games.seven.hands import x"), "guide.py")
    assert _foreign_game_imports(ast.parse("import referee.games.omaha.engine"),
                                 "games/deuces/engine.py")
    assert not _foreign_game_imports(ast.parse("from referee.games.seven.hands import x"),
                                     "games/seven/engine.py")
    assert not _foreign_game_imports(ast.parse("from referee.games import spec"), "guide.py")
    assert _private_uses(ast.parse("from referee.service import _Ctx"))
    assert _private_uses(ast.parse("ref._say(ctx, 'x')"))
    assert not _private_uses(ast.parse("self._x = 1\nsuper()._finish(out)\nx.__class__"))
    assert not _private_uses(ast.parse("from os import _exit"))  # not referee's


REPO = ROOT.parent
# The sibling folder the project's material once lived in, spelt so this file does not cite it.
OUTSIDE = "/".join(("..", "shared"))
TEXTS = sorted(p for d in ("referee", "tests", "bench", "scripts", "docs", ".ci")
               for p in (REPO / d).rglob("*")
               if p.is_file() and "node_modules" not in p.parts and "__pycache__" not in p.parts
               and p.suffix in {".py", ".md", ".toml", ".lark", ".sh", ".txt", ".jsonl", ""})
TEXTS += [REPO / "README.md", REPO / "pyproject.toml"]


@pytest.mark.parametrize("path", TEXTS, ids=lambda p: str(p.relative_to(REPO)))
def test_nothing_cites_a_directory_outside_the_repository(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    assert OUTSIDE not in text
