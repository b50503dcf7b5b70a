#!/usr/bin/env bash
# Create .venv and install the project with what the tests need. Idempotent; safe on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
fi
stamp=.venv/.installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".[test]"
    touch "$stamp"
fi
# Matrix bot and its tests: matrix-nio with end-to-end encryption (vodozemac wheel); checked on
# its own so a .venv made before the Matrix extra was added gets it too.
if ! .venv/bin/python -c "import nio, vodozemac" 2>/dev/null; then
    .venv/bin/python -m pip install -q -e ".[matrix]"
fi
# IRC bot and its tests: jaraco/irc (the `irc` extra), and ngIRCd from Debian's packages for the
# tests' server (apt-get, only when missing; see scripts/ngircd.sh).
if ! .venv/bin/python -c "import irc.client_aio" 2>/dev/null; then
    .venv/bin/python -m pip install -q -e ".[irc]"
fi
bash scripts/ngircd.sh install || echo "setup.sh: ngircd not installed; the IRC server tests will fail" >&2
# The Matrix tests' homeserver: Synapse in its own venv (.venv-synapse; its pins never meet ours).
# Idempotent (a stamp file); ~50 s the first time.
.venv/bin/python -m referee.adapters.matrix_synapse install
