"""The ``referee`` command: a thin shell over the library (docs/contracts.md §1-3 and the adapters).

Exit codes: 0 done, 2 bad input (one line on stderr, never a traceback), 141 when the reader of
the output went away (``referee parse - | head``: a broken pipe ends quietly, as Unix tools do).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

# Only what every command needs is imported here: ``referee --help`` and ``referee parse`` must
# not pay for the game definitions (pydantic), the engines or the store; each command imports
# its own modules (referee.games itself is light: it loads the games' specs on first use).
from referee.games import listed_ids


def default_db(environ: Mapping[str, str] | None = None) -> Path:
    """The database a command uses without ``--db``: ``REFEREE_DB``, else ``referee.db`` in the
    user's data directory (``$XDG_DATA_HOME/referee``, by default ``~/.local/share/referee``;
    ``%LOCALAPPDATA%\\referee`` on Windows, ``~/Library/Application Support/referee`` on macOS),
    never inside the installed package. ``scripts/run.sh`` passes ``data/referee.db`` of the
    checkout."""
    env = os.environ if environ is None else environ
    if env.get("REFEREE_DB"):
        return Path(env["REFEREE_DB"]).expanduser()
    home = Path(env.get("HOME") or Path.home())
    if sys.platform == "win32":
        base = Path(env.get("LOCALAPPDATA") or home / "AppData" / "Local")
    elif sys.platform == "darwin":
        base = home / "Library" / "Application Support"
    else:
        base = Path(env.get("XDG_DATA_HOME") or home / ".local" / "share")
    return base / "referee" / "referee.db"


_DB_HELP = "SQLite database (default: $REFEREE_DB, else referee.db in the user's data directory)"


def _fail(message: str) -> NoReturn:
    print(f"referee: {message}", file=sys.stderr)
    raise SystemExit(2)


def _say(key: str, **params: Any) -> str:
    from referee.lang.catalog import text

    return text(key, **params)


def os_error(path: object, e: OSError) -> str:
    from referee.lang.catalog import file_error

    return file_error(path, e)


# argparse's own usage errors (Python's English, gettext-marked in argparse) said in Japanese:
# each of its message formats, as a pattern, and the catalogue key that says it. An error
# none of them matches is said as the generic 「引数が正しくありません」, never in English.
_ARGUMENT = r"argument (?P<argument>.+?): "
_ARGPARSE: tuple[tuple[str, str], ...] = (
    (r"the following arguments are required: (?P<names>.+)", "cli.args_required"),
    (r"one of the arguments (?P<names>.+) is required", "cli.one_required"),
    (r"unrecognized arguments: (?P<args>.+)", "cli.unrecognized"),
    (r"ambiguous option: (?P<option>\S+) could match (?P<matches>.+)", "cli.ambiguous"),
    (_ARGUMENT + r"invalid choice: '(?P<value>.*)' \(choose from (?P<choices>.+)\)",
     "cli.invalid_choice"),
    (_ARGUMENT + r"invalid int value: '(?P<value>.*)'", "cli.invalid_number"),
    (_ARGUMENT + r"invalid \S+ value: '(?P<value>.*)'", "cli.invalid_value"),
    (_ARGUMENT + r"expected (?:one|at least one|\d+) arguments?", "cli.needs_value"),
    (_ARGUMENT + r"not allowed with argument (?P<other>.+)", "cli.not_allowed_with"),
    # a type's own refusal, already in Japanese (records KIND): said as it is
    (_ARGUMENT + r"(?P<message>.*[^\x00-\x7f].*)", "cli.said"),
)


def usage_message(prog: str, message: str) -> str:
    """argparse's error ``message`` for ``prog`` as the one Japanese line the command prints."""
    import re

    from referee.lang.catalog import messages

    def named(found: str) -> str:  # a positional argument by its Japanese name (cli.arg_*)
        return re.sub(r"(?<![-\w])[a-z]+(?![-\w])",
                      lambda w: messages().get(f"cli.arg_{w[0]}", w[0]), found)

    for pattern, key in _ARGPARSE:
        m = re.fullmatch(pattern, message)
        if m is not None:
            found = {k: v.replace("'", "") for k, v in m.groupdict().items()}
            for k in ("names", "argument"):
                if k in found:
                    found[k] = named(found[k])
            return _say("cli.usage_error", prog=prog, message=_say(key, **found))
    return _say("cli.usage_error", prog=prog, message=_say("cli.bad_arguments"))


class _Parser(argparse.ArgumentParser):
    """argparse with its usage errors in Japanese: one line on stderr, exit 2 (no usage block:
    ``--help`` shows it)."""

    def error(self, message: str) -> NoReturn:
        print(usage_message(self.prog, message), file=sys.stderr)
        raise SystemExit(2)


def _game(game: str) -> str:
    """``game`` if it is a registered game; else the one-line refusal every command gives."""
    from referee.games import UnknownGame, is_game

    if is_game(game):
        return game
    from referee.definitions import game_names, game_of
    from referee.lang.catalog import excerpt

    found = game_of(game)  # a Japanese name (オマハ) names the game as its id does
    if found is None:
        _fail(_say("cli.unknown_game", game=excerpt(str(UnknownGame(game).game)),
                   games=game_names()))
    return found


def _dump(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))


# --- referee hand ------------------------------------------------------------------------------

def cmd_hand(args: argparse.Namespace) -> None:
    from referee.cards import CardError, cards_str, parse_cards
    from referee.hands import HandError, evaluate_many, winners

    try:
        board = parse_cards(args.board) if args.board is not None else []
        hands = evaluate_many(_game(args.game), [parse_cards(text) for text in args.cards], board)
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

    args.game = _game(args.game)
    if args.text == "-":
        from functools import lru_cache

        # One encoder for the whole stream (_dump builds one per call), and each distinct line
        # serialised once: chat repeats (「こ」「F」「gg」) and the output depends on the line only.
        encode = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode

        @lru_cache(maxsize=32768)
        def answer(raw: bytes) -> str:
            # Decoded here: binary-looking input is chat (docs/contracts.md §2), any locale.
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            return encode(parse(line, args.game, args.table).to_json()) + "\n"

        out = sys.stdout
        for raw in sys.stdin.buffer:  # (long lines are rare: not worth their memory)
            out.write(answer(raw) if len(raw) <= 1024 else answer.__wrapped__(raw))
        out.flush()
    else:
        print(_dump(parse(args.text, args.game, args.table).to_json()))


# --- referee replay ----------------------------------------------------------------------------

def cmd_replay(args: argparse.Namespace) -> None:
    from referee.adapters.transcript import TranscriptError, replay

    try:
        replay(Path(args.file), db=Path(args.db) if args.db else None, out=sys.stdout)
    except TranscriptError as e:
        _fail(str(e))
    except BrokenPipeError:
        raise  # the output's reader is gone, not the file: main() ends quietly
    except OSError as e:
        _fail(os_error(args.file, e))


# --- referee analyze ---------------------------------------------------------------------------

def cmd_analyze(args: argparse.Namespace) -> None:
    try:
        from referee.analysis import AnalysisError, analyze
        from referee.analysis.tables import definition
    except ImportError as e:
        _fail(_say("cli.analysis_extra", module=str(e.name)))
    from referee.definitions import DefinitionError

    args.game = _game(args.game)
    hands = _number("--hands", args.hands) if args.hands is not None else None
    if hands is not None and hands < 2:
        _fail(_say("cli.hands_too_few"))
    seed = _number("--seed", args.seed)
    if args.plot is not None and not args.plot.lower().endswith(".png"):
        _fail(_say("cli.plot_png", path=args.plot))
    try:
        game = definition(args.game, args.set)
    except DefinitionError as e:
        _fail(str(e))
    quiet = args.json or not sys.stderr.isatty()
    progress = None if quiet else _progress_bar
    from referee.rules.base import IllegalAction, OptionError

    try:
        report = analyze(game, args.bet, hands, seed, progress)
    except AnalysisError as e:
        _fail(str(e))
    except (IllegalAction, OptionError) as e:  # a --set the engine cannot play with
        from referee.rules.voice import refusal_text

        _fail(_say("cli.engine_refused", game=args.game, reason=refusal_text(e.code, e.params)))
    if args.plot is not None:
        from referee.analysis.plot import plot

        try:
            plot(report, Path(args.plot))
        except OSError as e:
            _fail(os_error(args.plot, e))
    if args.json:
        print(_dump(report.to_json()))
        return
    from referee.analysis.text import render

    print(render(report, seed))


def _number(flag: str, text: str) -> int:
    try:
        return int(text.replace("_", "").replace(",", ""))
    except ValueError:
        _fail(_say("cli.not_whole_number", flag=flag, value=text))


def _progress_bar(label: str, total: int) -> Any:
    from tqdm import tqdm

    bar = tqdm(total=total, desc=label, unit="hand", file=sys.stderr, leave=False,
               dynamic_ncols=True)

    def step(n: int) -> None:
        bar.update(n)
        if bar.n >= total:
            bar.close()

    return step


# --- referee play / records ----------------------------------------------------------------

def cmd_play(args: argparse.Namespace) -> None:
    from referee.adapters.terminal import run

    run(db=Path(args.db), moderator=args.moderator, verbose=args.verbose)


def _record_kind(word: str) -> str:
    """argparse's type of ``records KIND``: the id of the kind typed by id or by name."""
    from referee.store.records import kind_names, record_kind

    kind = record_kind(word)
    if kind is None:
        from referee.lang.catalog import excerpt

        raise argparse.ArgumentTypeError(_say("records_kind_unknown", kind=excerpt(word),
                                              kinds=kind_names()))
    return kind


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
        from referee.store.records import text_lines

        for line in text_lines(args.kind, rows):
            print(line)


# --- referee check / backup --------------------------------------------------------------------

def cmd_check(args: argparse.Namespace) -> None:
    """Exit 0: sound; 1: readable but the ledger invariants fail; 2: unusable file."""
    from referee.lang.catalog import text
    from referee.store import StoreError
    from referee.store.integrity import check

    try:
        report = check(Path(args.db))
        if args.snapshots and report.ok:
            # slow, on demand: the newest snapshot plus the inputs after it must
            # give the same state as a full re-run of the log
            from referee.adapters import ledger_differences, snapshot_differences
            from referee.store import Store

            with Store(Path(args.db), create=False) as store:
                report.problems += snapshot_differences(store)
                report.problems += ledger_differences(store)
    except StoreError as e:
        _fail(str(e))
    if report.ok:
        print(text("store.check_ok", path=report.path, inputs=report.inputs,
                   ledger=report.ledger, players=report.players))
        return
    print(text("store.check_bad", path=report.path, count=len(report.problems),
               problems=" / ".join(report.problems[:5])), file=sys.stderr)
    raise SystemExit(1)


def cmd_backup(args: argparse.Namespace) -> None:
    from referee.lang.catalog import text
    from referee.store import StoreError
    from referee.store.integrity import backup

    try:
        dest = backup(Path(args.db), args.dest, wait=args.wait)  # str: a trailing / is a directory
    except StoreError as e:
        _fail(str(e))
    except OSError as e:
        _fail(os_error(args.dest, e))
    print(text("store.backup_done", path=args.db, dest=dest))


def cmd_irc_secret(args: argparse.Namespace) -> None:
    """Set a player's (a moderator's) IRC secret from the operator's terminal: the secret is
    read from stdin, never from the command line (it would show in ps and shell history)."""
    from referee.adapters.irc import casefold
    from referee.store import Store, StoreError
    from referee.store.identity import Identities, valid_secret

    secret = sys.stdin.readline().strip()
    if not valid_secret(secret):
        _fail(_say("cli.secret_invalid"))
    try:
        with Store(Path(args.db)) as store:
            Identities(store.conn).set_secret(casefold(args.name, args.casemapping), args.name,
                                              secret)
    except StoreError as e:
        _fail(str(e))
    print("referee: " + _say("cli.secret_set", name=args.name, db=args.db))


# --- referee verify / history (docs/fairness.md) ------------------------------------------------

def _read_jsonl(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as e:
        _fail(os_error(path, e))
    except UnicodeDecodeError:
        _fail(_say("cli.not_utf8", path=path))
    out: list[dict[str, Any]] = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            _fail(_say("cli.not_json", path=path, line=n))
        if not isinstance(obj, dict):
            _fail(_say("cli.not_json_object", path=path, line=n))
        out.append(obj)
    return out


def cmd_verify(args: argparse.Namespace) -> None:
    from referee.verify import Discrepancy, check_entropy, verify

    count = 0
    try:
        if args.db is not None:
            from referee.store import Store, StoreError
            from referee.store.integrity import TamperedDatabase, chain_check

            try:
                with Store(Path(args.db), create=False) as store:
                    rooms = [r[0] for r in store.conn.execute(
                        "SELECT name FROM rooms ORDER BY name")]
                    for room in rooms:
                        rows = list(store.conn.execute(
                            "SELECT input_id, input, events FROM log WHERE room = ?"
                            " ORDER BY seq", (room,)))
                        inputs = [json.loads(r[1]) for r in rows]
                        events_of = {str(r[0]): json.loads(r[2]) for r in rows}
                        count += verify(e for r in rows for e in json.loads(r[2]))
                        check_entropy(inputs, events_of)
                    # a shuffle's entropy is the room's inputs: any row changed after it was
                    # written breaks the digest chain (a deal's own discrepancy is named first)
                    chain_check(store.conn, args.db)
            except TamperedDatabase as e:
                raise Discrepancy(str(e)) from None
            except (StoreError, ValueError) as e:
                _fail(str(e))
        else:
            if args.file is None:
                _fail(_say("cli.verify_needs_input"))
            count = verify(_read_jsonl(args.file))
    except Discrepancy as e:
        print(_say("cli.verify_failed", detail=str(e)), file=sys.stderr)
        raise SystemExit(1) from None
    except (TypeError, ValueError, KeyError) as e:
        _fail(_say("cli.unreadable_event", detail=str(e)))
    from referee.lang.catalog import text

    print(text("store.verified", count=count) if count else text("store.nothing_to_verify"))


def cmd_history(args: argparse.Namespace) -> None:
    from datetime import UTC, datetime

    from referee import history as h
    from referee.records.visitor import log_entries, walk
    from referee.store import Store, StoreError

    since: float | None = None
    if args.since is not None:
        try:
            d = datetime.fromisoformat(args.since)
        except ValueError:
            _fail(_say("cli.since_not_date", value=args.since))
        since = (d if d.tzinfo else d.replace(tzinfo=UTC)).timestamp()
    book = h.HistoryBook(keep=None)
    try:
        with Store(Path(args.db), create=False) as store:
            walk(log_entries(store.conn), h.HistoryReader(book))
    except StoreError as e:  # its message names the file, in Japanese
        _fail(str(e))
    except (ValueError, KeyError, TypeError) as e:
        from referee.lang.catalog import text

        _fail(text("store.unreadable_hands", path=args.db, detail=str(e)))
    recs = [r for r in book.hands()
            if (args.hand is None or r.hand == args.hand)
            and (args.table is None or r.table == args.table)
            and (args.player is None or any(n == args.player for _, n, _ in r.seats))
            and (since is None or (r.time is not None and r.time >= since))]
    if args.format == "phh":
        from referee.games import is_game, spec

        phh = [r for r in recs if is_game(r.game) and spec(r.game).phh and r.limit in ("", "pot")]
        if not phh:
            _fail(_say("cli.no_phh_hand"))
        sys.stdout.write(h.to_phhs(phh))
        return
    if args.json:
        for r in recs:
            print(json.dumps(h.to_json(r), ensure_ascii=False))
        return
    if not recs:
        from referee.lang.catalog import text

        print(text("history_empty"))
    for r in recs:
        when = h.to_json(r)["time"]
        print(f"[{r.room}]" + (f" {when}" if when else ""))
        for line in h.summary_lines(r):
            print("  " + line)


# --- referee console ---------------------------------------------------------------------------

def _loopback(host: str) -> bool:
    import ipaddress

    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _port_reason(e: OSError) -> str:
    """Why a port cannot be listened on, in Japanese (the system's words are English)."""
    import errno
    import socket

    from referee.lang.catalog import text

    keys = {errno.EADDRINUSE: "console_port_in_use", errno.EACCES: "console_port_denied",
            errno.EADDRNOTAVAIL: "console_port_no_address"}
    key = keys.get(e.errno or 0)
    if key is not None:
        return text(key)
    if isinstance(e, socket.gaierror):  # a --host that names no address
        return text("console_port_no_address")
    return text("console_port_other", errno=errno.errorcode.get(e.errno or 0, type(e).__name__))


def _console_plan(args: argparse.Namespace) -> tuple[Any, tuple[Any, bool] | None]:
    """The start-up check ``referee console`` runs before it serves (a
    :class:`referee.store.integrity.BackgroundCheck` on a thread, or None) and what the kept
    console database answers for (:func:`referee.console.served_as_kept`)."""
    from referee.console import served_as_kept, verified_head
    from referee.store.integrity import BackgroundCheck

    if not Path(args.db).is_file():
        return None, None
    keep = Path(args.keep) if args.keep else None
    kept = served_as_kept(Path(args.db), keep)
    if kept is not None and kept[1]:
        # Grown since it was kept: served at once, and the check runs behind it, before the
        # rows added are read (console.CatchUp); nothing of the log is read before.
        return None, kept
    # The chain the bots check (from the head the bots or this console's last start verified
    # on) and the head kept beside the log, on a thread while the imports run; nothing is read
    # from the log before it passed. Every page of the file is checked only when the log is
    # read (a build): a start that serves the console database kept from this very log reads
    # nothing else of it, and what it serves was read when the file was sound. The console
    # writes nothing into the referee's database: its own head is kept beside --keep.
    known = verified_head(keep) if keep is not None else None
    return BackgroundCheck(Path(args.db), remember=False, known=known,
                           pages=kept is None), kept


def cmd_console(args: argparse.Namespace) -> None:
    import os
    import socket
    import tempfile

    from referee.console import (
        DB_NAME,
        PASSWORD_ENV,
        CatchUp,
        ExtraMissing,
        build,
        datasette,
        serve,
    )
    from referee.lang.catalog import text
    from referee.store import StoreError

    check, kept = _console_plan(args)
    password = os.environ.get(PASSWORD_ENV) or None
    if password is None and not args.insecure and not _loopback(args.host):
        _fail(text("console_needs_password", host=args.host))
    from referee.console_guard import MIN_PASSWORD

    if password is not None and len(password) < MIN_PASSWORD:
        _fail(text("console_password_short", min=MIN_PASSWORD))
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
        _fail(text("console_bad_port", port=str(args.port), reason=_port_reason(e)))
    if not Path(args.db).exists():
        _fail(text("store.no_database", path=args.db))
    try:
        if check is not None:
            check.result()  # before anything is read from the log
    except StoreError as e:
        _fail(str(e))
    with tempfile.TemporaryDirectory(prefix="referee-console-") as tmp:
        dest = Path(args.keep) if args.keep else Path(tmp) / f"{DB_NAME}.db"
        catch_up = CatchUp(Path(args.db), dest, kept[0]) if kept is not None and kept[1] \
            else None
        try:
            built = kept[0] if kept is not None else build(Path(args.db), dest,
                                                           reuse=args.keep is not None)
            ds = datasette(dest, password, theory_hands=args.theory_hands, catch_up=catch_up)
        except StoreError as e:
            _fail(str(e))
        except ExtraMissing as e:
            _fail(text("console_no_extra", missing=str(e)))
        except OSError as e:
            _fail(os_error(dest, e))
        if args.keep and check is not None and check.head is not None:
            from referee.console import keep_verified_head

            keep_verified_head(dest, check.head)
        key = "console_catching_up_start" if catch_up is not None else "console_built"
        print(text(key, hands=built.hands, penalties=built.penalties, flags=built.flags,
                   seconds=f"{built.seconds:.1f}"), file=sys.stderr)
        print(text("console_serving", url=f"http://{args.host}:{args.port}/"), flush=True)
        try:
            serve(ds, args.host, args.port,
                  started=catch_up.start if catch_up is not None else None)
        finally:
            if catch_up is not None:
                catch_up.stop()


# --- referee matrix ----------------------------------------------------------------------------

def _need_extra(module: str, extra: str) -> None:
    """One line naming the extra to install when a bot's library is missing (an installed
    wheel without ``[matrix]`` / ``[irc]``), never an import traceback."""
    import importlib.util

    if importlib.util.find_spec(module) is None:
        from referee.lang.catalog import text

        _fail(text("bot_no_extra", module=module, extra=extra))


def cmd_matrix(args: argparse.Namespace) -> None:
    _need_extra("nio", "matrix")
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
    from referee.store import StoreError

    try:
        run_matrix(config)
    except StoreError as e:  # refuses to start on a corrupt or unusable database
        _fail(str(e))


# --- referee irc -------------------------------------------------------------------------------

def cmd_irc(args: argparse.Namespace) -> None:
    _need_extra("irc", "irc")
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
            "backup_dir": args.backup_dir, "backup_every": args.backup_every,
            "backup_keep": args.backup_keep, "sasl_username": args.sasl_username,
        })
    except IrcConfigError as e:
        _fail(str(e))
    from referee.store import StoreError

    try:
        run_irc(config)
    except StoreError as e:  # refuses to start on a corrupt or unusable database
        _fail(str(e))


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="referee", description=__doc__)
    sub = p.add_subparsers(dest="command", required=True)

    h = sub.add_parser("hand", help="evaluate and compare hands (docs/contracts.md §1)")
    h.add_argument("--game", required=True, help=", ".join(listed_ids()))
    h.add_argument("--board", default=None, help="community cards, e.g. 'Ts 9s 8c'")
    h.add_argument("cards", nargs="+",
                   help="one argument per hand, e.g. 'Ah Kh Qd Jd'")
    h.set_defaults(func=cmd_hand)

    pa = sub.add_parser("parse", help="what a chat message means (docs/contracts.md §2)")
    pa.add_argument("--game", required=True, help=", ".join(listed_ids()))
    pa.add_argument("--table", type=int, default=None,
                    help="the table's number: a message tagged for another table is no action")
    pa.add_argument("text", help="the message, or - for one message per stdin line")
    pa.set_defaults(func=cmd_parse)

    r = sub.add_parser("replay", help="referee a transcript, print JSON Lines events (§3)")
    r.add_argument("--db", default=None, help="SQLite file to persist to (resumable)")
    r.add_argument("file")
    r.set_defaults(func=cmd_replay)

    an = sub.add_parser("analyze", help="return to player and house edge of a game's bets "
                        "(docs/analysis.md)")
    an.add_argument("game", help=", ".join(listed_ids()))
    an.add_argument("--bet", action="append", default=[], help="one bet (repeat for several)")
    an.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                    help="try a definition change, e.g. aa_table.royal_flush=250")
    # numbers checked by cmd_analyze, so a bad one is one line like every other bad input
    an.add_argument("--hands", default=None, help="Monte Carlo hands")
    an.add_argument("--seed", default="1", help="Monte Carlo seed (default 1)")
    an.add_argument("--json", action="store_true", help="one JSON object (docs/contracts.md §5)")
    an.add_argument("--plot", default=None, metavar="FILE.png",
                    help="draw the return's convergence / the rows' contributions")
    an.set_defaults(func=cmd_analyze)

    pl = sub.add_parser("play", help="a terminal table: type 'name: message' lines")
    pl.add_argument("--db", default=str(default_db()), help=_DB_HELP)
    pl.add_argument("--moderator", default="dealer", help="name allowed to use moderator commands")
    pl.add_argument("-v", "--verbose", action="store_true", help="also print every event")
    pl.set_defaults(func=cmd_play)

    rc = sub.add_parser("records", help="moderator queries on the database")
    rc.add_argument("--db", default=str(default_db()), help=_DB_HELP)
    rc.add_argument("kind", type=_record_kind,
                    help="bank, penalties, flags, hands, ledger (or their Japanese names)")
    rc.add_argument("--player", default=None)
    rc.add_argument("--json", action="store_true")
    rc.set_defaults(func=cmd_records)

    v = sub.add_parser("verify", help="check every revealed deal (docs/fairness.md)")
    v.add_argument("file", nargs="?", default=None,
                   help="JSON Lines events (referee replay)")
    v.add_argument("--db", default=None, help="or a referee database (also checks the entropy)")
    v.set_defaults(func=cmd_verify)

    hi = sub.add_parser("history", help="finished hands, only what was shown")
    hi.add_argument("--db", default=str(default_db()), help=_DB_HELP)
    sel = hi.add_mutually_exclusive_group()
    sel.add_argument("--hand", type=int, default=None)
    sel.add_argument("--player", default=None)
    sel.add_argument("--since", default=None, help="YYYY-MM-DD (UTC) or an ISO time")
    hi.add_argument("--table", type=int, default=None,
                    help="the table's number (hand numbers restart at every table)")
    out = hi.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true")
    out.add_argument("--format", choices=("text", "phh"), default="text")
    hi.set_defaults(func=cmd_history)


    co = sub.add_parser("console", help="read-only web console for moderators (docs/console.md)")
    co.add_argument("--db", default=str(default_db()), help=_DB_HELP)
    co.add_argument("--host", default="127.0.0.1",
                    help="address to listen on (default 127.0.0.1: this machine only)")
    co.add_argument("--port", type=int, default=8001)
    co.add_argument("--keep", default=None, metavar="FILE",
                    help="write the console database (no hidden cards) to FILE and keep it;"
                         " a FILE built from the same log by the same code is reused")
    co.add_argument("--theory-hands", type=int, default=20000, metavar="N",
                    help="hands per Monte Carlo bet for the house games' theoretical return"
                         " on the bank page, computed after start-up (0: none)")
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
    ir.add_argument("--sasl-username", default=None,
                    help="log the bot in to services (SASL PLAIN); password in "
                    "REFEREE_IRC_SASL_PASSWORD or the config's sasl_password")
    ir.add_argument("--backup-dir", default=None,
                    help="where the bot's back-ups go (default: backups/ next to the database)")
    ir.add_argument("--backup-every", type=float, default=None,
                    help="seconds between back-ups (default 3600; 0: only on !close)")
    ir.add_argument("--backup-keep", type=int, default=None,
                    help="back-ups kept (default 24)")
    ir.set_defaults(func=cmd_irc)

    ck = sub.add_parser("check", help="integrity check and ledger invariants of a database")
    ck.add_argument("--db", default=str(default_db()), help=_DB_HELP)
    ck.add_argument("--snapshots", action="store_true",
                    help="also re-run the whole log and compare it with the newest snapshot (slow)")
    ck.set_defaults(func=cmd_check)

    bk = sub.add_parser("backup", help="a consistent copy of a database (safe while it is used)")
    bk.add_argument("--db", default=str(default_db()), help=_DB_HELP)
    bk.add_argument("--wait", type=float, default=60.0,
                    help="seconds to wait for a replay that holds the file (default 60)")
    bk.add_argument("dest",
                    help="the copy's file name, or a directory (existing, or ending in /)"
                    " for a time-stamped copy")
    bk.set_defaults(func=cmd_backup)

    sc = sub.add_parser("irc-secret", help="set a player's IRC secret (read from stdin)")
    sc.add_argument("--db", required=True)
    sc.add_argument("name", help="the player's (moderator's) name, e.g. dealer")
    sc.add_argument("--casemapping", default="rfc1459",
                    choices=["rfc1459", "strict-rfc1459", "ascii"],
                    help="how the server compares nicks (its CASEMAPPING; the bot re-keys the"
                         " secret to the server's own when it connects)")
    sc.set_defaults(func=cmd_irc_secret)
    return p


SIGPIPE_STATUS = 128 + 13
"""The exit status of a command whose output's reader went away: what the shell reports for
``cat``, ``grep`` or ``seq`` killed by SIGPIPE (128 + the signal's number), so a pipeline under
``set -o pipefail`` sees the same as with any Unix tool; 0 would claim all was written."""


def _broken_pipe() -> NoReturn:
    """The reader of stdout is gone (``| head`` has read enough): end quietly. Python ignores
    SIGPIPE, so every command's write raises instead of the process dying; caught once, here.
    What a command wrote to a database stands (its own ``finally`` blocks ran on the way out).
    stdout is pointed at /dev/null first, or the interpreter's last flush at exit would fail
    again with an "Exception ignored" message."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # not a file (a test's buffer)
        pass
    raise SystemExit(SIGPIPE_STATUS)


def main(argv: Sequence[str] | None = None) -> None:
    import sqlite3

    args = build_parser().parse_args(argv)
    try:
        args.func(args)
        sys.stdout.flush()  # here, not at exit: a reader gone by now is a broken pipe below
    except BrokenPipeError:
        _broken_pipe()
    except sqlite3.DatabaseError as e:
        # A page found damaged half-way through a run (the check at open passed): the same one
        # line as at open, naming the file, never a traceback.
        from referee.store.integrity import CorruptDatabase

        _fail(str(CorruptDatabase(getattr(args, "db", None) or "?", str(e))))


if __name__ == "__main__":
    main()
