"""Persistence: the referee's SQLite database (event log, bank and ledger, derived records).

Adapters and the CLI construct a :class:`Store` and hand it to the service as its
``Persistence``; the service never imports this package (layering).
"""

from referee.store.connection import connect
from referee.store.db import AlreadyProcessed, Store
from referee.store.records import KINDS, query, records
from referee.store.schema import LATEST, MIGRATIONS, StoreError, migrate

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
