"""The code's shape, checked on the source so it stays that way:

* no write to an object's ``__dict__`` or to pydantic's ``__pydantic_fields_set__`` /
  ``__pydantic_extra__`` anywhere under ``referee/`` (speed comes from the design);
* no file under ``referee/`` over 800 lines;
* in the pipeline (``referee/service*``, ``referee/commands.py``), the adapters and the command
  line: no comparison with a game id and no ``getattr`` on an engine -- they ask the registry
  and the engine's declared capabilities;
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


@pytest.mark.parametrize("path", FILES, ids=_rel)
def test_no_file_over_800_lines(path: Path) -> None:
    assert len(path.read_text(encoding="utf-8").splitlines()) <= 800


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
def test_the_pipeline_never_names_a_game_nor_probes_an_engine(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert not _game_comparisons(tree), "compares a game id"
    assert not _engine_getattr(tree), "getattr on an engine"


def test_the_pipeline_checks_see_what_they_forbid() -> None:
    assert _game_comparisons(ast.parse('if game == "deuces": pass'))
    assert _game_comparisons(ast.parse('x = t.game in ("omaha", "seven")'))
    assert _engine_getattr(ast.parse('getattr(table.engine, "bonus_area", None)'))
    assert not _game_comparisons(ast.parse("if game not in GAME_IDS: pass"))


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
