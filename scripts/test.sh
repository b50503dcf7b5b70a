#!/usr/bin/env bash
# The test commands (README, .ci/run).
#   bash scripts/test.sh [PYTEST ARGS]          everything, as CI runs it: setup (the Debian
#       packages need root), lint, type-check, the wheel check (scripts/wheel_check.sh), then
#       every test over three pytest-xdist workers a core
#   bash scripts/test.sh --quick [PYTEST ARGS]  the one-minute loop: lint and every test that
#       needs no server, browser or long analysis (it deselects the markers server, browser,
#       analysis, integrity and slow: tests/conftest.py says which files carry which); setup of
#       the Python packages only (setup.sh --dev), no root
# Server and browser tests skip, naming what to install, when their programs are missing --
# except under CI=true, where they fail.
set -euo pipefail
cd "$(dirname "$0")/.."
# Byte-code caches on, whatever the shell says: without them every xdist worker and every
# `referee` process a test starts compiles the project and its test files (and rewrites their
# asserts) from source again -- a third of the quick loop's CPU.
unset PYTHONDONTWRITEBYTECODE
# Workers: the quick loop is CPU-bound, one worker a core (at most 4). The full run is not: the
# server tests mostly wait on Synapse, the IRC servers' flood pacing and the bots' subprocesses,
# so it runs three workers a core (at most 6; each server-test worker starts its own Synapse and
# IRC servers).
cores=$(nproc 2>/dev/null || echo 2)
jobs=$cores
[ "$jobs" -gt 4 ] && jobs=4
full_jobs=$((cores * 3))
[ "$full_jobs" -gt 6 ] && full_jobs=6
if [ "${1:-}" = "--quick" ]; then
    shift
    bash scripts/setup.sh --dev
    .venv/bin/ruff check referee tests bench
    # Property tests draw a fifth of their examples (tests/examples.py); CI draws them all.
    export REFEREE_QUICK=1
    # pytest exits 5 when it collects nothing: that must fail loudly, not pass.
    exec .venv/bin/python -m pytest -m "not slow and not server and not browser and not analysis and not integrity" \
        -n "$jobs" --dist loadfile "$@"
fi
bash scripts/setup.sh --test
.venv/bin/ruff check referee tests bench
# The type check and the wheel check (the wheel, installed into a clean venv outside the checkout,
# runs hand / parse / replay) side by side: one is CPU, the other mostly pip and disk.
.venv/bin/mypy referee &
mypy=$!
bash scripts/wheel_check.sh &
wheel=$!
failed=0
wait "$mypy" || failed=1
wait "$wheel" || failed=1
[ "$failed" = 0 ] || { echo "test.sh: the type check or the wheel check failed" >&2; exit 1; }
.venv/bin/python -m pytest -n "$full_jobs" --dist loadfile --no-loadscope-reorder "$@"
