"""The moderators' read-only web console (``referee console``), served by Datasette.

The referee's own database is never served: it holds every hole card ever dealt (the ``deal`` of
an input, the private ``say`` events that told each player their cards) so that it can be
replayed. :func:`build` reads it (``mode=ro``, one read transaction, so a bot may go on writing)
and writes a separate **console database** of moderator-facing tables only, with Japanese column
names; :func:`serve` serves that file immutable (``Datasette(immutables=…)``): no SQL but a
``SELECT`` runs, and the file is opened read-only.

What goes into the console database is whitelisted, never filtered out: cards reach it only
through what the room itself was shown -- the ``board`` and ``shown`` events, and the ``say``
events addressed to the room while a hand was running at that table (copied as they were said,
for the hand's log; never read) -- and through no other event field. Private ``say`` events,
``deal`` data, the inputs' JSON, ``showdown``/``misdeal``/``duplicate``/``exposed`` events and
rejected messages are never copied. The message that caused a penalty or a flag is copied only
when it was said in a room (``dm`` false). A table's game and number come from its
``table_open`` and ``hand_seats`` events, never from what anyone typed.

The console database is built from the whole log on a start (``referee console`` prints how long
it took); with ``--keep FILE`` a later start over the same log reuses it as it is, or, when the
log has grown, serves it at once as it was kept and reads only the rows added since behind it
(:class:`CatchUp`; the reader's state is kept beside it, ``FILE.resume``), a notice on every
page until the pages show them. Restart the console to see newer records.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from referee.console_base import JST as JST  # the names other modules and tests read here
from referee.console_base import TEMPLATES, Built, Progress, Stopped, file_stamp, stamp_of
from referee.console_base import label as label
from referee.console_base import ledger_reason as ledger_reason
from referee.console_base import table_name as table_name
from referee.lang.catalog import messages, text
from referee.store.base import LATEST, StoreError, current_version

DB_NAME = "referee"
"""The console database's name in Datasette (its URLs: ``/referee/bank``)."""

_META: dict[str, Any] = tomllib.loads((TEMPLATES / "metadata.toml").read_text(encoding="utf-8"))


def open_source(path: Path) -> sqlite3.Connection:
    """The referee's database, opened read-only (StoreError, one Japanese line, if it is
    missing, unreadable, damaged, not ours or newer than this code)."""
    if not path.exists():
        raise StoreError(text("store.no_database", path=str(path)))
    if not path.is_file():
        raise StoreError(text("store.not_a_file", path=str(path)))
    try:
        conn = sqlite3.connect(path.resolve().as_uri() + "?mode=ro", uri=True,
                               isolation_level=None, check_same_thread=False)
    except sqlite3.Error as e:
        raise unreadable(path, e) from None
    try:
        version = current_version(conn)
    except StoreError:
        conn.close()
        raise StoreError(text("store.not_ours", path=str(path))) from None
    except sqlite3.Error as e:  # locked (a replay owns it), unreadable, not SQLite
        conn.close()
        raise unreadable(path, e) from None
    if version == 0:
        conn.close()
        raise StoreError(text("store.not_ours", path=str(path)))
    if version > LATEST:
        conn.close()
        raise StoreError(text("console_schema_newer", path=str(path), version=version,
                              latest=LATEST))
    return conn


def unreadable(path: Path, e: sqlite3.Error) -> StoreError:
    """SQLite's error reading ``path`` as one Japanese line: a damaged file (what to do about
    it), else why it cannot be read now."""
    from referee.store.integrity import CorruptDatabase, sqlite_said

    if not isinstance(e, sqlite3.OperationalError):
        return CorruptDatabase(path, str(e))
    return StoreError(text("console_cannot_read", path=str(path), reason=sqlite_said(str(e))))


def build(source: Path, dest: Path, reuse: bool = False,
          reading: Callable[[], object] | None = None,
          progress: Progress | None = None) -> Built:
    """Write the console database ``dest`` (replaced if it exists) from the referee database
    ``source``, which is only read. With ``reuse``, a ``dest`` already built by this code from
    ``source`` as it is now (its log's last row unchanged) is kept as it is: a restart of the
    console over a log that has not grown costs no rebuild, and imports nothing that builds
    (:mod:`referee.console_build`); over a log that has grown, the build resumes.
    ``reading`` is called before the log is read (a build or a resume; never when the kept
    database answers): the console's check of every page of ``source``, which raises.
    ``dest`` is replaced in one rename once the new one is complete, so a console may be
    serving it meanwhile (:class:`CatchUp`); ``progress`` follows the walk and stops it."""
    started = time.monotonic()
    src = open_source(source)
    try:
        src.execute("BEGIN")  # one snapshot of a database a bot may be writing
        try:
            stamp = _stamp(src)
            kept = _kept(dest, stamp) if reuse and stamp is not None and dest.is_file() \
                else None
            if kept is not None:
                kept.seconds = time.monotonic() - started
                return kept
            _before_reading(reading)
            if reuse and stamp is not None and dest.is_file():
                from referee.console_build import resume

                kept = resume(src, dest, stamp, progress)
                if kept is not None:
                    kept.seconds = time.monotonic() - started
                    return kept
            from referee.console_build import build_afresh

            return build_afresh(src, dest, started, stamp, progress)
        except sqlite3.Error as e:
            raise unreadable(source, e) from None
    finally:
        src.close()


def served_as_kept(source: Path, dest: Path | None) -> tuple[Built, bool] | None:
    """What the console database kept at ``dest`` (``--keep``) holds, if this code built it
    from the log ``source`` as it is now or as it was at one of its earlier rows, and whether
    the log has grown since (True: the console serves it at once and reads the rows added
    behind it, :class:`CatchUp`); None: the log is read before anything is served (a first
    build, another code's database, another log). Reads of ``source`` its last row and the
    row ``dest`` was built up to (a few ms), nothing of the build's modules."""
    if dest is None or not dest.is_file():
        return None
    try:
        src = open_source(source)
    except StoreError:
        return None
    try:
        now = _stamp(src)
        then = file_stamp(dest)
        if now is None or then is None or not 0 < then[0] <= now[0]:
            return None
        if then[0] < now[0]:
            row = src.execute("SELECT chain FROM inputs WHERE seq = ?", (then[0],)).fetchone()
            if row is None or not isinstance(row[0], bytes) or stamp_of(then[0], row[0]) != then:
                return None
        elif then != now:
            return None
    except sqlite3.Error:
        return None
    finally:
        src.close()
    kept = _kept(dest, then)
    return None if kept is None else (kept, then[0] < now[0])


def _before_reading(reading: Callable[[], object] | None) -> None:
    """Import the build's modules (:mod:`referee.console_build`) while ``reading`` (the check
    of every page: SQLite, which lets another thread run) goes on in a thread; raise what
    it raised."""
    if reading is None:
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1, thread_name_prefix="console-check") as pool:
        checked = pool.submit(reading)
        import referee.console_build  # noqa: F401  (imported for what follows)
        checked.result()


def _stamp(src: sqlite3.Connection) -> tuple[int, int] | None:
    """The source log's last row (its seq) and an identity of it and of this code
    (:func:`referee.console_base.stamp_of`), or None for a log without a chain."""
    try:
        row = src.execute("SELECT seq, chain FROM inputs ORDER BY seq DESC LIMIT 1").fetchone()
    except sqlite3.Error:
        return None
    if row is None or not isinstance(row[1], bytes) or not 0 < int(row[0]) < 2**31:
        return None
    return stamp_of(int(row[0]), row[1])


def _kept(dest: Path, stamp: tuple[int, int]) -> Built | None:
    """What ``dest`` holds if this code built it from the log ``stamp`` names, else None."""
    try:
        conn = sqlite3.connect(f"file:{dest.resolve()}?mode=ro", uri=True)
    except sqlite3.Error:
        return None
    try:
        seq = conn.execute("PRAGMA user_version").fetchone()[0]
        ident = conn.execute("PRAGMA application_id").fetchone()[0]
        if (seq, ident) != stamp:
            return None
        counts = [conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                  for t in ("hands", "penalties", "flags", "bank")]
    except sqlite3.Error:
        return None
    finally:
        conn.close()
    return Built(*counts)


def _chain_file(dest: Path) -> Path:
    return dest.with_name(dest.name + ".chain")


def verified_head(dest: Path) -> tuple[int, bytes] | None:
    """The referee log's chain head the console's last start-up check found sound, kept beside
    the console database ``dest`` (the console never writes the referee's database); None
    when there is none or it is not one."""
    try:
        seq, chain = _chain_file(dest).read_text(encoding="ascii").split()
        return int(seq), bytes.fromhex(chain)
    except (OSError, ValueError):
        return None


def keep_verified_head(dest: Path, head: tuple[int, bytes]) -> None:
    """Keep ``head`` beside ``dest`` for the next start's check (best effort, atomically)."""
    path = _chain_file(dest)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(f"{head[0]} {head[1].hex()}\n", encoding="ascii")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()


# --- catching up behind the served console --------------------------------------------------


class CatchUp:
    """The rows a log gained since ``--keep FILE`` was built, read behind the served console.

    A start over a grown log serves FILE at once, as it was kept, and reads the rows added on
    a thread once the server listens (:meth:`start`): first the start-up check of the log (the
    chain from the verified head, the head kept beside the log, every page -- a changed or
    damaged log is never read), then the build resumed in a copy of FILE that replaces it in
    one rename, then the served database moved onto it (:func:`_swap`) and the verified head
    kept. Until then every page says the console is catching up (:meth:`notice`); should any
    of it fail, the pages go on showing what FILE held, with the reason in Japanese, and the
    kept files stay as they were (the next start serves and resumes them again)."""

    def __init__(self, source: Path, dest: Path, shown: Built,
                 say: Callable[[str], object] | None = None) -> None:
        self.source, self.dest, self.shown = source, dest, shown
        self.progress = Progress()
        self.state = "waiting"  # then "reading", and "done", "failed" or "stopped"
        self.error: str | None = None
        self.built: Built | None = None
        self.served: Any = None  # the Datasette serving ``dest`` (:func:`datasette` sets it)
        self._say = say or _stderr
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Read the rows added, on a thread of its own (the server answers meanwhile)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self.run, name="console-catch-up",
                                            daemon=True)
            self._thread.start()

    def stop(self, wait: float = 30.0) -> None:
        """Stop reading (the console is closing): what the walk wrote is removed."""
        self.progress.stop()
        if self._thread is not None:
            self._thread.join(wait)

    def run(self) -> None:
        """Check, read, replace and swap (see the class); never raises."""
        heads: list[tuple[int, bytes] | None] = []
        known = verified_head(self.dest)

        def reading() -> None:
            from referee.store.integrity import quick_check_file

            heads.append(quick_check_file(self.source, chain=True, remember=False,
                                          known=known))

        self.state = "reading"
        try:
            built = build(self.source, self.dest, reuse=True, reading=reading,
                          progress=self.progress)
            if self.served is not None:
                _swap(self.served, self.dest)
        except Stopped:
            self.state = "stopped"
            return
        except StoreError as e:
            self._failed(str(e))
            return
        except Exception as e:  # a fault of this code: one line, and the pages go on
            self._failed(text("console_catch_up_fault", error=f"{type(e).__name__}: {e}"))
            return
        if heads and heads[0] is not None:
            keep_verified_head(self.dest, heads[0])
        self.built, self.state = built, "done"
        self._say(text("console_built", hands=built.hands, penalties=built.penalties,
                       flags=built.flags, seconds=f"{built.seconds:.1f}"))

    def _failed(self, reason: str) -> None:
        self.error, self.state = reason, "failed"
        self._say(text("console_catch_up_failed", hands=self.shown.hands, reason=reason))

    def notice(self) -> dict[str, str] | None:
        """What every page says about it (``state``: a code for the page's markup), or None
        once caught up."""
        if self.state in ("waiting", "reading"):
            return {"state": "reading", "level": "info",
                    "text": text("console_catching_up", hands=self.progress.hands,
                                 shown=self.shown.hands)}
        if self.state == "failed":
            return {"state": "failed", "level": "error",
                    "text": text("console_catch_up_failed", hands=self.shown.hands,
                                 reason=self.error or "")}
        return None


def _stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _swap(ds: Any, path: Path) -> None:
    """Serve the file now at ``path`` (renamed over the one served) under the same name: a new
    Datasette database for it, its tables counted (Datasette keeps an immutable database's
    counts, and a page would give up after 10 ms on a large table), put in the old one's place
    in one assignment (as Datasette's own ``add_database`` does). Each SQL thread drops its
    connection to the old file at its next query (:func:`_served`)."""
    import asyncio

    db = _served(ds, path)
    db.name = db.route = DB_NAME
    asyncio.run(db.table_counts(limit=3_600_000))
    ds.databases = {**ds.databases, DB_NAME: db}


class _Reopen(Exception):
    """A SQL thread's connection was another database's (the file served before a swap)."""


def _served(ds: Any, path: Path) -> Any:
    """A Datasette database serving ``path`` immutable (read-only, no locks).

    Datasette keeps one connection per SQL thread and database name, and never opens it
    again; an immutable connection reads the file it opened, whatever is renamed over it
    since. So this database knows the connections it opened, and a query handed another's --
    the one before a :func:`_swap` -- closes it and forgets it (this thread's; not in use:
    a thread runs one query at a time) and runs again, on a connection Datasette opens anew."""
    from datasette.database import Database, connections

    db = Database(ds, path=str(path), is_mutable=False)
    db.cached_hash = _identity(path)
    mine: dict[int, sqlite3.Connection] = {}
    opened, executed = db.connect, db.execute_fn

    def connect(write: bool = False) -> sqlite3.Connection:
        conn: sqlite3.Connection = opened(write)
        mine[id(conn)] = conn
        return conn

    async def execute_fn(fn: Callable[[sqlite3.Connection], Any]) -> Any:
        def own(conn: sqlite3.Connection) -> Any:
            if mine.get(id(conn)) is not conn:
                with contextlib.suppress(AttributeError):
                    delattr(connections, DB_NAME)
                conn.close()
                raise _Reopen
            return fn(conn)

        while True:
            try:
                return await executed(own)
            except _Reopen:
                continue

    db.connect, db.execute_fn = connect, execute_fn
    return db


# --- Datasette -------------------------------------------------------------------------------

PASSWORD_ENV = "REFEREE_CONSOLE_PASSWORD"
HASH_ENV = "REFEREE_CONSOLE_PASSWORD_HASH"
USER = "moderator"
"""The login name when a password is set (HTTP basic authentication)."""

QUERIES: dict[str, dict[str, Any]] = _META["queries"]
TABLES: dict[str, dict[str, Any]] = _META["tables"]


ORDER = ("bank", "ledger", "penalties", "flags", "hands", "hand_log", "books", "tables", "ranks")


def _menu() -> str:
    """The Japanese menu on the first pages (Datasette lists tables by their SQL names)."""
    from html import escape

    def item(path: str, info: dict[str, Any]) -> str:
        return (f'<li><a href="/{DB_NAME}/{path}"><strong>{escape(info["title"])}</strong></a>'
                f" — {escape(info.get('description', ''))}</li>")

    return (
        str(_META["menu_intro"]) + f"<h3>{_META['menu_queries']}</h3><ul>"
        + "".join(item(k, v) for k, v in QUERIES.items())
        + f"</ul><h3>{_META['menu_tables']}</h3><ul>"
        + "".join(item(t, TABLES[t]) for t in ORDER) + "</ul>"
        + f'<p class="console-note"><a href="/{DB_NAME}?_sql_editor=1">'
        f'{escape(text("console_ui_sql_link"))}</a></p>'
    )


MENU = ("bank_ranking", "economy", "player_balance", "bank", "ledger", "penalties", "flags",
        "hands")
"""The console's menu on every page (base.html): canned queries and tables by their titles."""


def _ui() -> dict[str, str]:
    prefix = "console_ui_"
    return {k[len(prefix):]: v for k, v in messages().items() if k.startswith(prefix)}


def metadata(password_hash: str | None = None) -> dict[str, Any]:
    """Datasette metadata: Japanese titles, descriptions and canned queries."""
    menu = _menu()
    meta: dict[str, Any] = {
        "title": _META["title"],
        "description_html": menu,
        "databases": {DB_NAME: {"title": _META["database_title"], "description_html": menu,
                                "tables": TABLES, "queries": QUERIES}},
    }
    if password_hash is not None:
        # By reference: /-/metadata.json shows {"$env": …}, not the hash (Datasette resolves it
        # from the environment of this process only when the plugin asks for its config).
        os.environ[HASH_ENV] = password_hash
        meta["plugins"] = {"datasette-auth-passwords": {
            f"{USER}_password_hash": {"$env": HASH_ENV}, "http_basic_auth": True}}
        meta["allow"] = {"id": USER}
    return meta


# A query of one's own stops after 1 s (and at most HEAVY of them run at once: the guard);
# the pages' own queries keep the other SQL threads.
SETTINGS: dict[str, Any] = {
    "default_page_size": 50,
    "suggest_facets": False,
    "sql_time_limit_ms": 1000,
    "max_returned_rows": 5000,
    "num_sql_threads": 3,
    "allow_download": True,
}


class ExtraMissing(Exception):
    """The ``console`` extra (Datasette) is not installed."""


def datasette(console_db: Path, password: str | None = None, guard: Any = None,
              theory_hands: int = 0, catch_up: CatchUp | None = None) -> Any:
    """A started :class:`datasette.app.Datasette` serving ``console_db`` immutable, behind
    ``guard`` (a :class:`referee.console_guard.Guard`, a fresh one if None; it limits wrong
    passwords when there is a password, and heavy queries always); the house games'
    theoretical returns computed after it starts with ``theory_hands`` hands per Monte Carlo
    bet (0: not at all); ``catch_up``: the rows a grown log gained, read behind it (its
    notice on every page, the database it swaps when done)."""
    try:
        import asyncio

        _lazy_units()
        from datasette.app import Datasette
    except ImportError as e:
        raise ExtraMissing(e.name or "datasette") from None
    password_hash = None
    if password is not None:
        try:
            from datasette_auth_passwords.utils import hash_password
        except ImportError as e:
            raise ExtraMissing(e.name or "datasette-auth-passwords") from None
        password_hash = hash_password(password)
    # Datasette prints each refused request's traceback with its locals when rich is installed
    # (a refused INSERT in the SQL editor is an ordinary event here): one line of log is enough.
    import datasette.handle_exception as handle_exception

    handle_exception.rich = None
    # Served under the name DB_NAME whatever the file is called (--keep FILE), immutable: the
    # file is opened read-only (?immutable=1) and only SELECT runs. A Datasette without files
    # would add an in-memory database of its own: removed, so that only the console is served.
    _register_plugin()
    ds = Datasette(metadata=metadata(password_hash), settings=SETTINGS,
                   template_dir=str(TEMPLATES))
    from referee.console_guard import Guard

    ds.referee_guard = guard or Guard()  # with no password it limits heavy queries only
    if "_memory" in ds.databases:
        ds.remove_database("_memory")
    ds.add_database(_served(ds, console_db), name=DB_NAME, route=DB_NAME)
    ds.referee_catch_up = catch_up
    if catch_up is not None:
        catch_up.served = ds
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(ds.invoke_startup())
    finally:
        loop.close()
    from referee.records.theory import Theory

    ds.referee_theory = Theory(theory_hands)
    ds.referee_theory.start()
    return ds


def _identity(console_db: Path) -> str | None:
    """The console database's content named without reading it: the log's row and the code
    it was built from (its stamp) and its size. Datasette's own name for an immutable file
    is the SHA-256 of every byte (0.4 s at 500 MB), computed on the first front page; None
    (Datasette's) for a database without a stamp."""
    try:
        conn = sqlite3.connect(f"file:{console_db.resolve()}?mode=ro", uri=True)
        try:
            seq = conn.execute("PRAGMA user_version").fetchone()[0]
            ident = conn.execute("PRAGMA application_id").fetchone()[0]
        finally:
            conn.close()
        size = console_db.stat().st_size
    except (sqlite3.Error, OSError):
        return None
    if not seq:
        return None
    return hashlib.sha256(f"referee-console {seq} {ident} {size}".encode()).hexdigest()


class _LazyUnits:
    """Stands for pint's unit registry until a page uses one (a column with units, which our
    metadata never sets): Datasette builds the registry when its views are imported, and the
    import of its vendored pint alone is a third of a console's start (0.26-0.31 s CPU)."""

    _made: Any = None

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._how = (args, kwargs)

    def _registry(self) -> Any:
        if self._made is None:
            import importlib

            pint = importlib.import_module(_PINT)
            self._made = pint.UnitRegistry(*self._how[0], **self._how[1])
        return self._made

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._registry()(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._registry(), name)


_PINT = "datasette.vendored.pint"


def _lazy_units() -> None:
    """Datasette's views imported with a stand-in for its vendored pint, whose only use there
    is ``pint.UnitRegistry()``: they get a :class:`_LazyUnits`, and pint itself is imported
    when a unit is first used (never, with our metadata). httpx (Datasette's internal client)
    is imported without its command-line client: 0.05 s CPU less."""
    import sys

    if "datasette.views.base" in sys.modules:
        return
    import importlib
    import types

    if "httpx" not in sys.modules and "httpx._main" not in sys.modules:
        # its command-line client (click, rich, pygments), which httpx imports if it can
        # (None in sys.modules: "no such module"); never run in the console
        sys.modules["httpx._main"] = None  # type: ignore[assignment]
    real = sys.modules.get(_PINT)
    stand_in = types.ModuleType(_PINT)
    setattr(stand_in, "UnitRegistry", _LazyUnits)  # noqa: B010
    sys.modules[_PINT] = stand_in
    try:
        importlib.import_module("datasette.views.base")  # reads pint.UnitRegistry once, here
    finally:
        if real is not None:
            sys.modules[_PINT] = real
        else:
            del sys.modules[_PINT]


def _globals() -> dict[str, Any]:
    """What our templates read besides Datasette's own, on every page (errors too): the menu,
    the Japanese chrome (``console_ui_*`` of the catalogue), the filters' names and the
    tables' titles."""
    ui = _ui()
    titles = {name: info["title"] for name, info in TABLES.items()}
    titles.update({name: info["title"] for name, info in QUERIES.items()})
    return {
        "console_titles": titles,
        "console_hidden": [name for name, info in TABLES.items() if info.get("hidden")],
        "console_text": ui,
        "console_menu": [{"href": f"/{DB_NAME}/{name}", "label": titles[name]} for name in MENU
                         if name in titles],
        "console_lookups": {k[len("lookup_"):]: v for k, v in ui.items()
                            if k.startswith("lookup_")},
        "console_params": {k[len("param_"):]: v for k, v in ui.items()
                           if k.startswith("param_")},
    }


def _environment(env: Any) -> None:
    env.globals.update(_globals())


def _template_vars(view_name: str, table: str | None, request: Any, datasette: Any) -> Any:
    """On a hand's page, its replay (the ``replays`` row of the hand); on the bank over time,
    the house games' theoretical returns (:class:`referee.records.theory.Theory`)."""
    theory = getattr(datasette, "referee_theory", None)
    catch_up = getattr(datasette, "referee_catch_up", None)
    base: dict[str, Any] = {"console_theory": dict(theory.figures) if theory else {},
                            "console_catch_up": catch_up.notice() if catch_up else None}
    ui = _ui()
    if view_name != "row" or table != "hands" or request is None:
        return base

    async def with_replay() -> dict[str, Any]:
        pk = str(request.url_vars.get("pks", ""))
        rows = (await datasette.get_database(DB_NAME).execute(
            "SELECT * FROM replays WHERE rowid = ?", [pk])).rows if pk.isdigit() else []
        if rows:  # JSON inside a <script> element: no "</" may end it early
            from referee.faces import CARD_FACES

            base["replay"] = str(rows[0][1]).replace("</", "<\\/")
            base["card_faces"] = json.dumps(CARD_FACES, ensure_ascii=False)
            base["replay_words"] = json.dumps(
                {k: ui[f"replay_{k}"] for k in ("step", "start", "none", "dealer")},
                ensure_ascii=False).replace("</", "<\\/")
        return base

    return with_replay


def _guarded(datasette: Any) -> Any:
    """The wrong-password limit of a console with a password (:mod:`referee.console_guard`),
    looked up per request: Datasette builds its app before :func:`datasette` can set it.
    Outermost (``trylast``: wrappers apply in hook order), so it sees the password plugin's
    401 answers."""

    def wrap(app: Any) -> Any:
        async def guarded(scope: Any, receive: Any, send: Any) -> None:
            guard = getattr(datasette, "referee_guard", None)
            inner = app if guard is None else guard.wrap(app)
            await inner(scope, receive, send)

        return guarded

    return wrap


def _register_plugin() -> None:
    """A Datasette plugin, in-process: the tables' Japanese titles for the templates."""
    from datasette import hookimpl
    from datasette.plugins import pm

    if pm.get_plugin("referee-console") is None:
        hooks = {"extra_template_vars": staticmethod(hookimpl(_template_vars)),
                 "prepare_jinja2_environment": staticmethod(hookimpl(_environment)),
                 "asgi_wrapper": staticmethod(hookimpl(_guarded, trylast=True))}
        plugin = type("RefereeConsole", (), hooks)
        pm.register(plugin, name="referee-console")


def serve(ds: Any, host: str, port: int, started: Callable[[], None] | None = None) -> None:
    """Serve until interrupted (uvicorn, as ``datasette serve`` does); ``started`` is called
    once the server listens (a :class:`CatchUp` begins then, not during the start)."""
    import signal

    import uvicorn

    if threading.current_thread() is threading.main_thread():
        # uvicorn shuts down gracefully on SIGINT / SIGTERM and then raises the signal again
        # with the handlers it found: make those a plain exit, so that the caller's cleanup
        # (the temporary console database) runs and Ctrl+C prints no traceback.
        def stop(sig: int, frame: object) -> None:
            raise SystemExit(0)

        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, stop)

    class Server(uvicorn.Server):
        async def startup(self, sockets: Any = None) -> None:
            await super().startup(sockets)
            if self.started and started is not None:
                started()

    # proxy_headers off: uvicorn would otherwise take the client address from X-Forwarded-For
    # on connections from 127.0.0.1, letting anyone choose whose guess count a try lands on
    server = Server(uvicorn.Config(ds.app(), host=host, port=port, log_level="warning",
                                   lifespan="on", workers=1, proxy_headers=False))
    server.run()
    if not server.started:
        raise SystemExit(3)  # uvicorn's own exit when it could not start (it said why)
