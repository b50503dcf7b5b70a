"""A test whose server or browser is missing skips locally, naming what installs it, and fails
under CI, where a skip would hide a broken setup."""

from __future__ import annotations

import pytest
from needs import need


def test_a_missing_part_skips_locally_with_the_install_command(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception, match=r"ngircd not installed.*ngircd\.sh"):
        need(None, "ngircd", "bash scripts/ngircd.sh install")
    need("/usr/sbin/ngircd", "ngircd")  # present: nothing happens


@pytest.mark.parametrize("ci", ["true", "1"])
def test_a_missing_part_fails_under_ci(monkeypatch: pytest.MonkeyPatch, ci: str) -> None:
    monkeypatch.setenv("CI", ci)
    with pytest.raises(pytest.fail.Exception, match=r"CI must have it: Synapse"):
        need(False, "Synapse")
