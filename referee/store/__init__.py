"""Persistence: the referee's SQLite database (event log, bank and ledger, derived records).

Adapters and the CLI construct a :class:`Store` and hand it to the service as its
``Persistence``; the service never imports this package (layering).

The store's heavy modules (:class:`Store`, the migrations: sqlite-utils, pydantic, the typed
events) are imported when first asked for (``from referee.store import Store``), not with the
package: a reader of :mod:`referee.store.integrity` or :mod:`referee.store.chain` alone -- the
moderators' console over a log it has already read -- does not pay for them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from referee.store.base import StoreError
from referee.store.records import KINDS, query, records

if TYPE_CHECKING:
    from referee.store.connection import connect
    from referee.store.db import AlreadyProcessed, Store
    from referee.store.schema import LATEST, MIGRATIONS, migrate

__all__ = [
    "KINDS",
    "LATEST",
    "MIGRATIONS",
    "AlreadyProcessed",
    "Store",
    "StoreError",
    "connect",
    "migrate",
    "query",
    "records",
]

_LAZY = {"connect": "connection", "AlreadyProcessed": "db", "Store": "db", "LATEST": "schema",
         "MIGRATIONS": "schema", "migrate": "schema"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'referee.store' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"referee.store.{module}"), name)
    globals()[name] = value
    return value
