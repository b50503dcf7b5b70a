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
  contract ``docs/contracts.md``, the parser's corpus ``tests/corpus/``);
* sentences in one place: no ``Say(...)`` with a rendered ``text`` anywhere under ``referee/``
  (a say is a catalogue key and its parameters, rendered by the voice at the turn's end); the
  table (the engines, the discipline, the commands, the service) renders no catalogue message
  itself; and no event a transcript stores holds Japanese but the players' own words.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator
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


# --- sentences in one place: facts and codes in the table, words in the voice ----------------

#: The table: what decides and says things (a say, a refusal) -- everything under games/ and
#: rules/ but the voices, and the pipeline's modules.
TABLE = [p for p in FILES
         if ((p.parts[-2] == "rules" or "games" in p.parts[:-1]) and p.name != "voice.py")
         or _rel(p) in ("discipline.py", "commands.py", "service.py", "turn.py",
                        "directives.py", "registry.py", "guide.py")]
#: The catalogue's renderers: the voice calls them, the table names a key instead.
RENDERERS = frozenset({"text", "fill", "file_error"})
#: Table modules that still render a catalogue message, with why (the list only shrinks).
RENDER_EXCEPTIONS = {
    # HandError: `referee hand` prints it as its one-line error (a shell's line), never a say
    "games/seven/hands.py",
}


def _says_with_text(tree: ast.AST) -> list[int]:
    return [n.lineno for n in ast.walk(tree)
            if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "Say"
            and any(k.arg == "text" for k in n.keywords)]


def _renders(tree: ast.AST) -> list[int]:
    """Lines that import a catalogue renderer or call ``catalog.text``."""
    out = []
    for n in ast.walk(tree):
        if isinstance(n, ast.ImportFrom) and n.module == "referee.lang.catalog" and any(
                a.name in RENDERERS for a in n.names):
            out.append(n.lineno)
        if (isinstance(n, ast.Attribute) and n.attr in RENDERERS
                and getattr(n.value, "id", "") == "catalog"):
            out.append(n.lineno)
    return out


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_no_say_carries_rendered_text(path: Path) -> None:
    assert not _says_with_text(ast.parse(path.read_text(encoding="utf-8"))), (
        "a say is a catalogue key and its parameters: Say.of(to, line(KEY, ...))")


@pytest.mark.parametrize("path", TABLE, ids=_rel)
def test_the_table_renders_no_sentence(path: Path) -> None:
    if _rel(path) in RENDER_EXCEPTIONS:
        pytest.skip("known exception (RENDER_EXCEPTIONS)")
    assert not _renders(ast.parse(path.read_text(encoding="utf-8"))), (
        "name a catalogue key (referee.events.line); the voice renders it")


def test_the_sentence_checks_see_what_they_forbid() -> None:
    assert _says_with_text(ast.parse('Say(to="room", text=msg("x"))'))
    assert not _says_with_text(ast.parse('Say.of("room", line("x"))'))
    assert _renders(ast.parse("from referee.lang.catalog import excerpt, text"))
    assert _renders(ast.parse("catalog.text('x')"))
    assert not _renders(ast.parse("from referee.lang.catalog import excerpt, messages"))
    assert {_rel(p) for p in TABLE} >= {"games/omaha/engine.py", "rules/house.py",
                                        "discipline.py", "commands.py", "service.py"}
    assert not any(p.name == "voice.py" for p in TABLE)
    for rel in RENDER_EXCEPTIONS:
        assert _renders(ast.parse((ROOT / rel).read_text(encoding="utf-8"))), rel


JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff60\u3000-\u303f]")
TRANSCRIPTS = sorted(p for p in (REPO / "tests" / "transcripts").rglob("*.txt")
                     if "malformed" not in p.name) + sorted((ROOT / "examples").glob("*.txt"))


def _strings(value: object) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


@pytest.mark.parametrize("path", TRANSCRIPTS, ids=lambda p: p.name)
def test_no_japanese_in_stored_events(path: Path) -> None:
    """What the event log keeps of a transcript's run (events.fact_json) holds no Japanese but
    what the players typed (a refused line, a flagged message), and renders back to exactly
    what was said."""
    from referee.adapters.transcript import replay_events
    from referee.events import Rejected, Say, fact_json
    from referee.rules.registry import parse_event
    from referee.rules.voice import rendered

    typed = path.read_text(encoding="utf-8")
    for ev in replay_events(path):
        stored = json.loads(fact_json(ev))
        if isinstance(ev, (Say, Rejected)):
            assert "text" not in stored or ev.event == "rejected", stored
            assert rendered(parse_event(stored)) == ev, stored
        said = [t for t in _strings(stored) if JAPANESE.search(t) and t not in typed]
        assert not said, (ev.event, said)
