"""What a reader of a referee database needs before it migrates, writes or types anything: the
error every store operation raises and the schema's version. Kept apart from
:mod:`referee.store.schema` (sqlite-utils, pydantic, the typed events) so that a reader which
only looks -- the moderators' console over a log it has already read -- does not import them.
"""

from __future__ import annotations

import sqlite3


class StoreError(Exception):
    """A database the referee cannot use (missing, not SQLite, not ours, too new, bad input)."""


LATEST = 11
"""The newest schema version (:data:`referee.store.schema.MIGRATIONS`' last; the schema module
refuses to load if they differ)."""


def current_version(conn: sqlite3.Connection) -> int:
    """The version a database has reached: 0 for an empty file; StoreError if it isn't ours."""
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "schema_version" not in names:
        if names:
            from referee.lang.catalog import text

            raise StoreError(text("store.not_ours_bare"))
        return 0
    row = conn.execute("SELECT max(version) FROM schema_version").fetchone()
    return int(row[0] or 0)
