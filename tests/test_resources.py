"""Package data comes from the package (what a wheel carries), and the default database is
never inside it: ``--db``, then ``REFEREE_DB``, then the user's data directory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import referee
from referee import resources
from referee.cli import default_db
from referee.definitions import load
from referee.games import BUILTIN, spec


def test_the_data_directories_are_inside_the_package() -> None:
    package = Path(referee.__file__).resolve().parent
    assert resources.PACKAGE == package
    for directory in (resources.GRAMMAR, resources.GAMES, resources.MESSAGES):
        assert directory.is_dir() and package in directory.parents
    folders = {p.parent.name for p in resources.GAMES.glob("*/spec.py")}
    assert folders == set(BUILTIN)
    assert all(spec(g).folder == resources.GAMES / g for g in BUILTIN)
    assert all(spec(g).grammar_file.is_file() for g in BUILTIN)
    assert all(load(g).id == g for g in BUILTIN)


def test_every_data_file_is_declared_package_data() -> None:
    """pyproject's package-data patterns cover every grammar, game and catalogue file, so that
    a wheel has what a checkout has (the wheel itself is built and run by scripts/test.sh)."""
    import tomllib

    root = Path(__file__).resolve().parents[1]
    config = tomllib.loads((root / "pyproject.toml").read_text("utf-8"))
    declared = config["tool"]["setuptools"]["package-data"]
    covered: set[Path] = set()
    for package, patterns in declared.items():
        base = root.joinpath(*package.split("."))
        for pattern in patterns:
            covered.update(base.glob(pattern))
    data = {*resources.GRAMMAR.rglob("*"), *resources.GAMES.rglob("*.toml"),
            *resources.MESSAGES.rglob("*")}
    missing = sorted(str(p.relative_to(root)) for p in data if p.is_file() and p not in covered)
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"


def test_the_default_database_is_the_environment_then_the_user_data_directory(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "linux")
    assert default_db({"REFEREE_DB": "/srv/r.db", "HOME": "/h"}) == Path("/srv/r.db")
    assert default_db({"HOME": "/h"}) == Path("/h/.local/share/referee/referee.db")
    assert default_db({"HOME": "/h", "XDG_DATA_HOME": "/x"}) == Path("/x/referee/referee.db")
    assert default_db({"HOME": "/h", "REFEREE_DB": ""}) == default_db({"HOME": "/h"})
    monkeypatch.setattr(sys, "platform", "darwin")
    assert default_db({"HOME": "/h"}) == Path("/h/Library/Application Support/referee/referee.db")
    for db in (default_db({"HOME": "/h"}), default_db()):
        assert resources.PACKAGE not in db.parents


def test_a_command_without_db_uses_referee_db(tmp_path: Path) -> None:
    """``referee check`` with neither ``--db`` nor a database at ``REFEREE_DB`` names that file;
    with ``--db`` it names the flag's."""
    env = {"REFEREE_DB": str(tmp_path / "from-env.db"), "HOME": str(tmp_path),
           "PATH": "/usr/bin:/bin", "PYTHONPATH": str(Path(referee.__file__).parents[1])}
    run = [sys.executable, "-m", "referee.cli", "check"]
    out = subprocess.run(run, env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "from-env.db" in out.stderr
    out = subprocess.run([*run, "--db", str(tmp_path / "flag.db")], env=env,
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "flag.db" in out.stderr and "from-env" not in out.stderr
