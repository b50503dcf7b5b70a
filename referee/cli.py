"""The ``referee`` command: a thin shell over the library (CONTRACTS.md §1-3 and the adapters).

Exit codes: 0 done, 2 bad input (one line on stderr, never a traceback).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from referee.definitions import GAME_IDS

DEFAULT_DB = Path(__file__).resolve().parent.parent / "data" / "referee.db"


def _fail(message: str) -> NoReturn:
    print(f"referee: {message}", file=sys.stderr)
    raise SystemExit(2)


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


# --- referee hand ------------------------------------------------------------------------------

def cmd_hand(args: argparse.Namespace) -> None:
    from referee.cards import CardError, cards_str, parse_cards
    from referee.hands import HandError, evaluate_many, winners

    try:
        board = parse_cards(args.board) if args.board is not None else []
        hands = evaluate_many(args.game, [parse_cards(text) for text in args.cards], board)
    except (CardError, HandError) as e:
        _fail(str(e))
    out = {
        "hands": [{"class": h.klass, "name": h.name, "cards": cards_str(h.cards)} for h in hands],
        "winners": winners(hands),
    }
    print(_dump(out))


# --- referee parse -----------------------------------------------------------------------------

def cmd_parse(args: argparse.Namespace) -> None:
    from referee.parse import parse

    if args.text == "-":
        from functools import lru_cache

        # One encoder for the whole stream (_dump builds one per call), and each distinct line
        # serialised once: chat repeats (「こ」「F」「gg」) and the output depends on the line only.
        encode = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode

        @lru_cache(maxsize=32768)
        def answer(raw: bytes) -> str:
            # Decoded here: binary-looking input is chat (CONTRACTS §2), whatever the locale.
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            return encode(parse(line, args.game).to_json()) + "\n"

        out = sys.stdout
        for raw in sys.stdin.buffer:  # (long lines are rare: not worth their memory)
            out.write(answer(raw) if len(raw) <= 1024 else answer.__wrapped__(raw))
        out.flush()
    else:
        print(_dump(parse(args.text, args.game).to_json()))


# --- referee replay ----------------------------------------------------------------------------

def cmd_replay(args: argparse.Namespace) -> None:
    from referee.adapters.transcript import TranscriptError, replay

    try:
        replay(Path(args.file), db=Path(args.db) if args.db else None, out=sys.stdout)
    except TranscriptError as e:
        _fail(str(e))
    except OSError as e:
        _fail(f"{args.file}: {e.strerror}")


# --- referee play / records ----------------------------------------------------------------

def cmd_play(args: argparse.Namespace) -> None:
    from referee.adapters.terminal import run

    run(db=Path(args.db), moderator=args.moderator, verbose=args.verbose)


def cmd_records(args: argparse.Namespace) -> None:
    from referee.store import StoreError, records

    try:
        rows = records(Path(args.db), args.kind, player=args.player)
    except StoreError as e:
        _fail(str(e))
    if args.json:
        for row in rows:
            print(_dump(row))
    else:
        for row in rows:
            print("  ".join(
                f"{k}={_dump(v) if isinstance(v, dict | list) else ('-' if v is None else v)}"
                for k, v in row.items()
            ))


# --- referee console ---------------------------------------------------------------------------

def _loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def cmd_console(args: argparse.Namespace) -> None:
    import os
    import socket
    import tempfile

    from referee.console import DB_NAME, PASSWORD_ENV, ExtraMissing, build, datasette, serve
    from referee.lang.catalog import text
    from referee.store import StoreError

    password = os.environ.get(PASSWORD_ENV) or None
    if password is None and not args.insecure and not _loopback(args.host):
        _fail(text("console_needs_password", host=args.host))
    for module, package in (("datasette", "datasette"), ("uvicorn", "uvicorn"),
                            ("datasette_auth_passwords", "datasette-auth-passwords")):
        try:
            __import__(module)
        except ImportError:
            _fail(text("console_no_extra", missing=package))
    try:  # a port that cannot be had: one line now, not uvicorn's log later
        with socket.create_server((args.host, args.port)):
            pass
    except OSError as e:
        _fail(text("console_bad_port", port=str(args.port), reason=e.strerror or str(e)))
    with tempfile.TemporaryDirectory(prefix="referee-console-") as tmp:
        dest = Path(args.keep) if args.keep else Path(tmp) / f"{DB_NAME}.db"
        try:
            built = build(Path(args.db), dest)
            ds = datasette(dest, password)
        except StoreError as e:
            _fail(str(e))
        except ExtraMissing as e:
            _fail(text("console_no_extra", missing=str(e)))
        except OSError as e:
            _fail(f"{dest}: {e.strerror or e}")
        print(text("console_built", hands=built.hands, penalties=built.penalties,
                   flags=built.flags, seconds=f"{built.seconds:.1f}"), file=sys.stderr)
        print(text("console_serving", url=f"http://{args.host}:{args.port}/"), flush=True)
        serve(ds, args.host, args.port)


# --- referee matrix ----------------------------------------------------------------------------

def cmd_matrix(args: argparse.Namespace) -> None:
    from referee.adapters.matrix import ConfigError, load_config
    from referee.adapters.matrix import run as run_matrix

    try:
        config = load_config(Path(args.config) if args.config else None, {
            "homeserver": args.homeserver, "user_id": args.user_id, "password": args.password,
            "access_token": args.access_token, "device_id": args.device_id,
            "database": args.db, "store_dir": args.store_dir, "moderators": args.moderator,
        })
    except ConfigError as e:
        _fail(str(e))
    run_matrix(config)


# --- referee irc -------------------------------------------------------------------------------

def cmd_irc(args: argparse.Namespace) -> None:
    from referee.adapters.irc import ConfigError as IrcConfigError
    from referee.adapters.irc import load_config as load_irc_config
    from referee.adapters.irc import run as run_irc

    channels = [c for group in args.channel for c in group.split(",") if c]
    try:
        config = load_irc_config(Path(args.config) if args.config else None, {
            "server": args.server, "port": args.port, "tls": args.tls,
            "tls_verify": args.tls_verify, "tls_ca": args.tls_ca, "nick": args.nick,
            "channels": channels, "moderators": args.moderator, "database": args.db,
            "require_identified": args.require_identified, "encoding": args.encoding,
            "interval": args.interval, "burst": args.burst,
        })
    except IrcConfigError as e:
        _fail(str(e))
    run_irc(config)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="referee", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)

    h = sub.add_parser("hand", help="evaluate and compare hands (CONTRACTS.md §1)")
    h.add_argument("--game", required=True, choices=GAME_IDS)
    h.add_argument("--board", default=None, help="community cards, e.g. 'Ts 9s 8c'")
    h.add_argument("cards", nargs="+", help="one argument per hand, e.g. 'Ah Kh Qd Jd'")
    h.set_defaults(func=cmd_hand)

    pa = sub.add_parser("parse", help="what a chat message means (CONTRACTS.md §2)")
    pa.add_argument("--game", required=True, choices=GAME_IDS)
    pa.add_argument("text", help="the message, or - for one message per stdin line")
    pa.set_defaults(func=cmd_parse)

    r = sub.add_parser("replay", help="referee a transcript, print JSON Lines events (§3)")
    r.add_argument("--db", default=None, help="SQLite file to persist to (resumable)")
    r.add_argument("file")
    r.set_defaults(func=cmd_replay)

    pl = sub.add_parser("play", help="a terminal table: type 'name: message' lines")
    pl.add_argument("--db", default=str(DEFAULT_DB))
    pl.add_argument("--moderator", default="dealer", help="name allowed to use moderator commands")
    pl.add_argument("-v", "--verbose", action="store_true", help="also print every event")
    pl.set_defaults(func=cmd_play)

    rc = sub.add_parser("records", help="moderator queries on the database")
    rc.add_argument("--db", default=str(DEFAULT_DB))
    rc.add_argument("kind", choices=("bank", "penalties", "flags", "hands"))
    rc.add_argument("--player", default=None)
    rc.add_argument("--json", action="store_true")
    rc.set_defaults(func=cmd_records)

    co = sub.add_parser("console", help="read-only web console for moderators (docs/console.md)")
    co.add_argument("--db", default=str(DEFAULT_DB))
    co.add_argument("--host", default="127.0.0.1",
                    help="address to listen on (default 127.0.0.1: this machine only)")
    co.add_argument("--port", type=int, default=8001)
    co.add_argument("--keep", default=None, metavar="FILE",
                    help="write the console database (no hidden cards) to FILE and keep it")
    co.add_argument("--insecure", action="store_true",
                    help="allow another --host without REFEREE_CONSOLE_PASSWORD")
    co.set_defaults(func=cmd_console)

    mx = sub.add_parser("matrix", help="run the bot on a Matrix homeserver (docs/matrix.md)")
    mx.add_argument("--config", default=None, help="TOML file ([matrix] table); flags override it")
    mx.add_argument("--homeserver", default=None, help="e.g. https://matrix.example.org")
    mx.add_argument("--user-id", default=None, help="the bot's id: @referee:example.org")
    mx.add_argument("--password", default=None, help="or env REFEREE_MATRIX_PASSWORD")
    mx.add_argument("--access-token", default=None)
    mx.add_argument("--device-id", default=None)
    mx.add_argument("--db", default=None, help="SQLite database (tables, bank, the bot's state)")
    mx.add_argument("--store-dir", default=None, help="end-to-end crypto store directory")
    mx.add_argument("--moderator", action="append", default=[], help="a moderator's Matrix id")
    mx.set_defaults(func=cmd_matrix)

    ir = sub.add_parser("irc", help="run the bot in IRC channels (docs/irc.md)")
    ir.add_argument("--config", default=None, help="TOML file ([irc] table); flags override it")
    ir.add_argument("--server", default=None, help="IRC server host name")
    ir.add_argument("--port", type=int, default=None, help="default 6667, or 6697 with --tls")
    ir.add_argument("--tls", action=argparse.BooleanOptionalAction, default=None,
                    help="connect with TLS (--no-tls: plain text)")
    ir.add_argument("--tls-verify", action=argparse.BooleanOptionalAction, default=None,
                    help="check the server certificate (default on)")
    ir.add_argument("--tls-ca", default=None, help="CA file to check the certificate with")
    ir.add_argument("--nick", default=None, help="the bot's nick (default referee)")
    ir.add_argument("--channel", action="append", default=[],
                    help="a channel to run a table in (repeat, or comma-separate)")
    ir.add_argument("--moderator", action="append", default=[], help="a moderator's nick")
    ir.add_argument("--require-identified", action=argparse.BooleanOptionalAction,
                    default=None, help="moderator commands only from nicks identified to "
                    "services (networks with NickServ)")
    ir.add_argument("--db", default=None, help="SQLite database (tables, bank)")
    ir.add_argument("--encoding", default=None, help="channel encoding (default utf-8)")
    ir.add_argument("--interval", type=float, default=None,
                    help="flood control: seconds per line after a burst (default 1.0)")
    ir.add_argument("--burst", type=int, default=None, help="lines sent at once (default 5)")
    ir.set_defaults(func=cmd_irc)
    return p


def main(argv: Sequence[str] | None = None) -> None:
    args = build_parser().parse_args(argv)
    args.func(args)


if __name__ == "__main__":
    main()
