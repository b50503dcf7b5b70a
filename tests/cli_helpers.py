"""The ``referee`` command run in-process for tests: its exit code, stdout and stderr."""

from __future__ import annotations

import contextlib
import io

from referee.cli import main


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``referee ARGV…``: (exit code, stdout, stderr); SystemExit becomes the code."""
    out, err = io.StringIO(), io.StringIO()
    code = 0
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(argv)
        except SystemExit as e:
            code = int(e.code or 0)
    return code, out.getvalue(), err.getvalue()
