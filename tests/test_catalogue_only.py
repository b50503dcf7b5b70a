"""Everything the bot says comes from the message catalogue.

Checked on the source, so a new sentence cannot slip in: under ``referee/`` no string literal
outside a docstring contains Japanese (kana, kanji or full-width forms) -- sentences live in
``referee/lang/messages/*.toml`` and vocabulary in ``grammar/`` -- and every
``IllegalAction(code, ...)`` names a message that exists, with the parameters it needs.
"""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pytest

from referee.lang.catalog import messages, params

ROOT = Path(__file__).resolve().parents[1] / "referee"
JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uff01-\uff60\u3000-\u303f]")
FILES = sorted(ROOT.rglob("*.py"))


def _docstrings(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def japanese_literals(path: Path) -> list[tuple[int, str]]:
    """(line, literal) of every non-docstring string constant with Japanese in it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = _docstrings(tree)
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and id(n) not in docs and JAPANESE.search(n.value)]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_japanese_literal_in_code(path: Path) -> None:
    found = japanese_literals(path)
    assert not found, "\n".join(f"{path.name}:{line}: {lit[:40]!r}" for line, lit in found)


def _illegal_calls(path: Path) -> list[ast.Call]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name) and n.func.id == "IllegalAction"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_refusal_names_a_catalogue_message(path: Path) -> None:
    bad = []
    for call in _illegal_calls(path):
        if not call.args:
            bad.append(f"{call.lineno}: no code")
            continue
        code = call.args[0]
        if isinstance(code, ast.Constant) and isinstance(code.value, str):
            if code.value not in messages():
                bad.append(f"{call.lineno}: {code.value!r} is not in the catalogue")
                continue
            given = {k.arg for k in call.keywords}
            if None not in given and params(code.value) - given:
                bad.append(f"{call.lineno}: {code.value} needs {params(code.value) - given}")
        elif not isinstance(code, ast.Name):  # a code passed on (``IllegalAction(e.code)``)
            bad.append(f"{call.lineno}: the code is built, not named")
    assert not bad, f"{path.name}: " + "; ".join(bad)


def test_catalogue_templates_parse() -> None:
    for key, template in messages().items():
        list(string.Formatter().parse(template))  # raises on a broken template
        assert template.strip(), key
