"""The analysis' disk cache: pay-table-independent tables kept between runs.

A table is stored under a name and a key: the source bytes of the modules whose code decides
it and the part of the game definition it reads, hashed. A change to either gives a new file
name, so a stale table is never read; a missing, unreadable or damaged file only means the
table is computed again (and saved, where the directory can be written). The directory is
the user's cache directory, never the source tree: ``REFEREE_CACHE_DIR``, else
``$XDG_CACHE_HOME/referee``, else ``~/.cache/referee``.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

Arrays = Mapping[str, npt.NDArray[np.generic]]
_PACKAGE = Path(__file__).resolve().parent.parent


def cache_dir() -> Path:
    """Where the analysis keeps its tables (module doc)."""
    env = os.environ.get("REFEREE_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "referee"


def cache_path(name: str, code: Sequence[str], definition: object) -> Path:
    """The file of table ``name`` decided by the package modules ``code`` (paths relative to
    the package, e.g. ``"games/deuces/hands.py"``) and ``definition`` (its ``repr`` is hashed)."""
    h = hashlib.sha256(repr((name, definition)).encode())
    for rel in code:
        h.update((_PACKAGE / rel).read_bytes())
    return cache_dir() / f"{name}-{h.hexdigest()[:20]}.npz"


def cached(path: Path, compute: Callable[[], Arrays],
           valid: Callable[[Arrays], bool] = lambda _: True) -> dict[str, npt.NDArray[np.generic]]:
    """The arrays stored at ``path`` if they load and pass ``valid``; else ``compute()``,
    saved there (atomically: a concurrent reader never sees half a file)."""
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
        if valid(arrays):
            return arrays
    except (OSError, ValueError, KeyError, EOFError):
        pass
    arrays = dict(compute())
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        with tmp.open("wb") as f:
            np.savez(f, allow_pickle=False, **arrays)
        tmp.replace(path)
    except OSError:
        pass  # a read-only or missing home: computed again next time
    return arrays
