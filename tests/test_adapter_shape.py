"""The adapters' shape, checked on the source so it stays that way: inputs are built
with :mod:`referee.inputs` (no hand-made ``{"kind": ...}`` dict), no adapter runs SQL on the
store, both chat bots route private messages by :mod:`referee.routing`, and no module is too
long to read. Plus the store methods the bots use instead of SQL."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from referee.inputs import Message
from referee.lang.reader import read_command
from referee.rules.voice import rendered_record
from referee.service import Referee
from referee.store import Store

ADAPTERS = Path(__file__).resolve().parents[1] / "referee" / "adapters"
FILES = sorted(ADAPTERS.glob("*.py"))
# The Matrix bot's own delivery tables (sync token, outbox, held events): its SQL, not the
# store's.
OWN_TABLES = {"matrix_state.py"}


def _tree(path: Path) -> ast.AST:
    return ast.parse(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_input_dict_built_by_hand(path: Path) -> None:
    bad = [n.lineno for n in ast.walk(_tree(path)) if isinstance(n, ast.Dict)
           and any(isinstance(k, ast.Constant) and k.value == "kind" for k in n.keys)]
    assert not bad, f"{path.name}: a {{'kind': ...}} dict at lines {bad}: use referee.inputs"


@pytest.mark.parametrize("path", [p for p in FILES if p.name not in OWN_TABLES],
                         ids=lambda p: p.name)
def test_no_sql_in_adapters(path: Path) -> None:
    tree = _tree(path)
    calls = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute)
             and n.attr in ("execute", "executemany", "executescript")]
    conn = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr == "conn"
            and isinstance(n.value, ast.Attribute) and n.value.attr == "store"]
    assert not calls and not conn, f"{path.name}: SQL at {calls}, store.conn at {conn}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_no_store_probed_with_getattr(path: Path) -> None:
    bad = [n.lineno for n in ast.walk(_tree(path)) if isinstance(n, ast.Call)
           and isinstance(n.func, ast.Name) and n.func.id in ("getattr", "hasattr") and n.args
           and "store" in ast.unparse(n.args[0]).split(".")[-1]]
    assert not bad, f"{path.name}: getattr on the store at lines {bad}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_modules_stay_readable(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= 650, f"{path.name}: {lines} lines"


@pytest.mark.parametrize("name", ["matrix.py", "irc.py"])
def test_both_chat_bots_route_private_messages_by_the_one_rule(name: str) -> None:
    tree = _tree(ADAPTERS / name)
    called = {n.func.id for n in ast.walk(tree)
              if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert "private_route" in called


def test_a_command_is_recognised_by_its_bang_in_either_width() -> None:
    assert read_command("!deal").body == "deal"  # type: ignore[union-attr]
    assert read_command("  \uff01deal ").body == "deal"  # type: ignore[union-attr]  # full width
    assert read_command("deal") is None
    assert read_command("") is None


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_adapters_read_the_service_not_its_insides(path: Path) -> None:
    """Adapters read tables through the service's read API (rooms, table_view, seated_rooms,
    an outcome's opened/closed), never its tables dict, an engine, the bank or the flags."""
    inside = {"tables", "engine", "bank", "discipline", "flags", "penalties", "ranks"}
    bad = [(n.lineno, n.attr) for n in ast.walk(_tree(path)) if isinstance(n, ast.Attribute)
           and n.attr in inside and "referee" in ast.unparse(n.value).split(".")[-1]]
    assert not bad, f"{path.name}: reaches into the service at {bad}"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_adapters_read_commands_with_the_one_reader(path: Path) -> None:
    """No adapter decides by itself whether a line is a command (a mark test, or the parser)."""
    src = path.read_text(encoding="utf-8")
    assert 'startswith("!")' not in src and "command_starts" not in src, path.name
    assert ".kind == \"command\"" not in src, path.name


def test_store_gives_the_events_of_a_saved_input(tmp_path: Path) -> None:
    with Store(tmp_path / "r.db") as store:
        ref = Referee(moderators=["dealer"], persistence=store)
        out = ref.process(Message("m1", "!room:hs", "dealer", "!grant @alice 500", 1.0))
        assert out is not None
        stored = store.events_of("m1")  # the facts: a say's key and parameters, no Japanese
        assert [e.get("key") for e in stored if e["event"] == "say"] == ["granted"]
        assert [rendered_record(e) for e in stored] == [e.to_json() for e in out.events]
        assert store.events_of("never") == []
        assert not store.identities().has_secret("alice")


@pytest.mark.parametrize("bot", ["irc", "matrix"])
def test_the_chat_bots_are_composed_not_a_mixin_stack(bot: str) -> None:
    """Each chat bot owns its parts instead of inheriting them (IRC: session, link, book,
    proofs, outbox; Matrix: delivery, crypto, verification): no part declares another's methods
    as stubs for a shared ``self``, nor borrows its attributes through class annotations."""
    from referee.adapters import (
        irc_connection,
        irc_delivery,
        irc_proofs,
        matrix_crypto,
        matrix_delivery,
        matrix_verify,
    )
    from referee.adapters.irc import IrcBot
    from referee.adapters.matrix import MatrixBot

    composed, parts = {
        "irc": (IrcBot, (irc_connection.Link, irc_delivery.Outbox, irc_proofs.Proofs)),
        "matrix": (MatrixBot, (matrix_delivery.Delivery, matrix_crypto.Crypto,
                               matrix_verify.Verification)),
    }[bot]
    assert composed.__bases__ == (object,)
    for part in parts:
        assert part.__bases__ == (object,), part
        src = Path(part.__module__.replace(".", "/") + ".py")
        text = (ADAPTERS.parent.parent / src).read_text(encoding="utf-8")
        assert "NotImplementedError" not in text, src
        assert not inspect.get_annotations(part), part
