"""Builds the C references of the benches into a cache directory, once.

- ``phe_loop``: ``bench/native/phe_loop.c`` linked with phevaluator's own C library, its
  sources taken from the phevaluator sdist on PyPI (``pip download --no-deps --no-binary :all:
  phevaluator==<the installed version>``), every file compiled with ``cc -O3 -march=native``.
  The first build takes about a minute (phevaluator's Omaha tables are one 93 MB C file).
- ``deuces_wild_ref``: ``bench/native/deuces_wild_ref.c`` (``classes`` mode: the suit-class
  enumerator), same flags.

The cache is ``$REFEREE_BENCH_CACHE``, else ``~/.cache/referee-bench``; a build is named by the
hash of its sources and flags, so an edit rebuilds it. Returns None (and says why on stderr)
when there is no C compiler, no network for the sdist or no phevaluator installed: the bench
then prints its other lines. Run alone (``python bench/native/cref.py``) it builds both and
prints their paths.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
FLAGS = ["-O3", "-march=native"]


def cache() -> Path:
    env = os.environ.get("REFEREE_BENCH_CACHE")
    path = Path(env) if env else Path.home() / ".cache" / "referee-bench"
    path.mkdir(parents=True, exist_ok=True)
    return path


def _cc() -> str | None:
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        print("(no C compiler: no C reference)", file=sys.stderr)
    return cc


def _digest(*parts: bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p)
    return h.hexdigest()[:16]


def phevaluator_sources() -> Path | None:
    """The ``_pheval_csrc`` directory of the installed phevaluator's sdist, downloaded once."""
    try:
        version = metadata.version("phevaluator")
    except metadata.PackageNotFoundError:
        print("(phevaluator not installed: no C reference)", file=sys.stderr)
        return None
    root = cache() / f"phevaluator-{version}"
    src = root / "_pheval_csrc"
    if src.is_dir():
        return src
    got = subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps",
                          "--no-binary", ":all:", f"phevaluator=={version}", "-d", str(cache())],
                         capture_output=True, text=True)
    sdists = sorted(cache().glob(f"phevaluator-{version}.tar.gz"))
    if got.returncode or not sdists:
        print(f"(phevaluator sdist not downloaded: {got.stderr.strip()[-200:]})", file=sys.stderr)
        return None
    with tarfile.open(sdists[0]) as tar:
        tar.extractall(cache(), filter="data")
    return src if src.is_dir() else None


def phe_loop() -> Path | None:
    """The C loop over phevaluator's C library (module doc)."""
    cc = _cc()
    src = phevaluator_sources()
    if cc is None or src is None:
        return None
    sources = sorted((src / "src").glob("*.c"))
    main = HERE / "phe_loop.c"
    key = _digest(main.read_bytes(), str(src).encode(), " ".join(FLAGS).encode())
    exe = cache() / f"phe_loop-{key}"
    if exe.exists():
        return exe
    objs = []
    for c in sources:
        obj = cache() / "obj" / f"{c.stem}-{_digest(c.read_bytes(), ' '.join(FLAGS).encode())}.o"
        if not obj.exists():
            obj.parent.mkdir(exist_ok=True)
            print(f"(compiling phevaluator's {c.name}: {cc} {' '.join(FLAGS)})",
                  file=sys.stderr)
            tmp = obj.with_suffix(f".{os.getpid()}.tmp")
            subprocess.run([cc, *FLAGS, "-c", str(c), "-I", str(src / "include"), "-o", str(tmp)],
                           check=True)
            tmp.replace(obj)
        objs.append(str(obj))
    tmp = exe.with_suffix(f".{os.getpid()}.tmp")
    subprocess.run([cc, *FLAGS, "-o", str(tmp), str(main), *objs, "-I", str(src / "include")],
                   check=True)
    tmp.replace(exe)
    return exe


def deuces_ref() -> Path | None:
    """The Deuces Wild C enumerator (module doc)."""
    cc = _cc()
    if cc is None:
        return None
    main = HERE / "deuces_wild_ref.c"
    exe = cache() / f"deuces_wild_ref-{_digest(main.read_bytes(), ' '.join(FLAGS).encode())}"
    if not exe.exists():
        tmp = exe.with_suffix(f".{os.getpid()}.tmp")
        subprocess.run([cc, *FLAGS, "-o", str(tmp), str(main)], check=True)
        tmp.replace(exe)
    return exe


def c_loop(mode: str, cards: Sequence[Sequence[int]], min_time: float) -> tuple[float, int] | None:
    """Hands per CPU second of the C loop ``mode`` (``seven``: 7 cards a hand; ``omaha``: 4 hole
    cards then 5 board cards) over ``cards``, and the sum of the ranks of one pass; None without
    the build."""
    exe = phe_loop()
    if exe is None:
        return None
    with tempfile.NamedTemporaryFile(suffix=".cards") as f:
        f.write(bytes(c for hand in cards for c in hand))
        f.flush()
        out = subprocess.run([str(exe), mode, f.name, str(min_time)], capture_output=True,
                             text=True, check=True).stdout
    got = json.loads(out)
    return got["hands"] / got["seconds"], int(got["rank_sum"])


if __name__ == "__main__":
    print(phe_loop())
    print(deuces_ref())
