"""``scripts/setup.sh`` waits for Debian's package lock and never takes another checkout's
``.venv`` as installed (issue 41, observation 9): a link to one is refused; a copied one whose
editable install imports the original checkout's ``referee`` is installed again here; this
checkout's own stays as it is. Each case runs the real script in a scratch checkout (a venv
without pip: an install it starts fails at once, offline, and never touches a real venv)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def checkout(tmp: Path, imports_from: str | None) -> Path:
    """A scratch checkout with setup.sh, pyproject.toml, a referee package and a .venv marked
    installed whose ``referee`` is the one under ``imports_from`` (None: this checkout's)."""
    co = tmp / "checkout"
    (co / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup.sh", co / "scripts" / "setup.sh")
    shutil.copy(ROOT / "pyproject.toml", co / "pyproject.toml")
    (co / "referee").mkdir()
    (co / "referee" / "__init__.py").write_text("", encoding="utf-8")
    venv.EnvBuilder(with_pip=False, symlinks=True).create(co / ".venv")
    site = next((co / ".venv" / "lib").glob("python3*/site-packages"))
    source = imports_from if imports_from is not None else str(co)
    (site / "__editable__.referee.pth").write_text(source + "\n", encoding="utf-8")
    stamp = co / ".venv" / ".installed-test"
    stamp.touch()
    os.utime(co / "pyproject.toml", (1_000_000, 1_000_000))  # older than the stamp
    return co


def setup(co: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return subprocess.run(["bash", "scripts/setup.sh", "--dev"], cwd=co, env=env,
                          capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)


def test_a_link_to_another_checkouts_venv_is_refused(tmp_path: Path) -> None:
    other = checkout(tmp_path / "other", None)
    co = tmp_path / "mine"
    (co / "scripts").mkdir(parents=True)
    shutil.copy(ROOT / "scripts" / "setup.sh", co / "scripts" / "setup.sh")
    (co / ".venv").symlink_to(other / ".venv")
    out = setup(co)
    assert out.returncode == 2 and "link" in out.stderr, out
    assert (other / ".venv" / ".installed-test").exists()  # the other checkout's untouched


def test_a_copied_venv_that_imports_the_original_is_installed_again(tmp_path: Path) -> None:
    original = tmp_path / "original"
    (original / "referee").mkdir(parents=True)
    (original / "referee" / "__init__.py").write_text("", encoding="utf-8")
    co = checkout(tmp_path, str(original))
    out = setup(co)
    assert "another checkout" in out.stderr, out
    assert not (co / ".venv" / ".installed-test").exists()  # not believed installed
    assert out.returncode != 0  # the install it started (no pip here) failed


def test_this_checkouts_own_venv_stays_installed(tmp_path: Path) -> None:
    co = checkout(tmp_path, None)
    out = setup(co)
    assert out.returncode == 0 and "another checkout" not in out.stderr, out
    assert (co / ".venv" / ".installed-test").exists()


def test_every_apt_get_waits_for_the_package_lock() -> None:
    """Another process holding dpkg's lock (an unattended upgrade) makes apt-get wait, up to
    its timeout, instead of giving up at once (then the IRC-services and browser tests could
    not run): every apt-get of the set-up scripts carries DPkg::Lock::Timeout."""
    calls = [(path.name, line.strip()) for path in sorted((ROOT / "scripts").glob("*.sh"))
             for line in path.read_text(encoding="utf-8").splitlines()
             if re.search(r"\bapt-get\s", line) and not line.lstrip().startswith("#")]
    assert calls, "no apt-get found: the check would prove nothing"
    assert all("DPkg::Lock::Timeout=" in line for _, line in calls), calls
