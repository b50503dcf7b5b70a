#!/usr/bin/env bash
# The test command (README, .ci/run): set up, lint, type-check the core, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
.venv/bin/ruff check referee tests bench
.venv/bin/mypy referee
# pytest exits 5 when it collects nothing: that must fail loudly, not pass.
.venv/bin/python -m pytest "$@"
