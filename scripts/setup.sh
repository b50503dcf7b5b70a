#!/usr/bin/env bash
# Create .venv and install the project. Idempotent; safe on a fresh machine.
#   scripts/setup.sh          what the main job needs (the terminal table on SQLite)
#   scripts/setup.sh --analysis  that plus `referee analyze` (numpy, matplotlib, tqdm)
#   scripts/setup.sh --console   the main job plus the moderators' web console (`referee console`)
#   scripts/setup.sh --dev    the Python packages the tests need (test tools and every extra), no
#                             servers and no root: what `scripts/test.sh --quick` runs with
#   scripts/setup.sh --test   everything the tests need: test tools, the Matrix, IRC, analysis
#                             and console extras, ngIRCd, InspIRCd + Atheme (Debian packages),
#                             Synapse (its own venv, .venv-synapse), the matrix-js-sdk test
#                             players (npm, tests/matrix/js) and headless Chromium with its
#                             driver (Debian packages)
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
# A .venv that is another checkout's (a link to it, or a copy whose editable install still
# imports the original's code) is refused or re-pointed, never taken as installed.
if [ -L .venv ]; then
    echo "setup.sh: .venv is a link to $(readlink .venv) (another checkout's); remove it and run again" >&2
    exit 2
fi
if [ ! -x .venv/bin/python ]; then
    "$PY" -m venv .venv
elif [ -n "$(ls .venv/.installed* 2>/dev/null)" ] && ! (cd / && "$OLDPWD/.venv/bin/python" - "$OLDPWD") <<'PYCHECK' 2>/dev/null
import sys, importlib.util
spec = importlib.util.find_spec("referee")
sys.exit(0 if spec and spec.origin and spec.origin.startswith(sys.argv[1] + "/") else 1)
PYCHECK
then
    echo "setup.sh: .venv imports another checkout's referee; installing this one" >&2
    rm -f .venv/.installed*
fi
extras=""
stamp=.venv/.installed
if [ "${1:-}" = "--analysis" ]; then
    extras="[analysis]"
    stamp=.venv/.installed-analysis
fi
if [ "${1:-}" = "--test" ] || [ "${1:-}" = "--dev" ]; then
    extras="[test,matrix,irc,analysis,console]"
    stamp=.venv/.installed-test
elif [ "${1:-}" = "--console" ]; then
    extras="[console]"
    stamp=.venv/.installed-console
fi
if [ "${1:-}" = "--test" ]; then
    # Four independent parts, side by side from the start (a bare machine's set-up is mostly
    # download, unpacking and waiting on the package managers): Synapse's venv and the two npm
    # player folders in the background while pip installs the project and then apt the Debian
    # packages (those one after another: apt holds one lock).
    # The Matrix tests' homeserver: Synapse in its own venv (its pins never meet ours); a stamp
    # file makes this a no-op once done. The installer needs only the standard library.
    "$PY" tests/matrix/synapse_server.py install &
    synapse=$!
    # The Element-like test players: matrix-js-sdk with its Rust crypto (wasm), from npm, exactly
    # as pinned by tests/matrix/js/package-lock.json; again only when the lock file changed.
    # tests/matrix/js-newest: the newest matrix-js-sdk, with the Node 22 it needs (npm's node
    # package: the machine's Node may be older).
    players=()
    for js in tests/matrix/js tests/matrix/js-newest; do
        if [ -L "$js/node_modules" ]; then
            # a worktree sharing another checkout's players: npm ci would empty the target
            echo "setup.sh: $js/node_modules is a link; the players are left as they are" >&2
        elif [ ! -f "$js/node_modules/.installed" ] || [ "$js/package-lock.json" -nt "$js/node_modules/.installed" ]; then
            if command -v npm >/dev/null; then
                (cd "$js" && npm ci --no-audit --no-fund --loglevel=error && touch node_modules/.installed) &
                players+=($!)
            else
                echo "setup.sh: npm not found; the matrix-js-sdk tests will fail" >&2
            fi
        fi
    done
fi
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e ".$extras"
    touch "$stamp"
fi
if [ "${1:-}" = "--test" ]; then
    # The IRC tests' server: ngIRCd from Debian's packages (apt-get, only when missing).
    bash scripts/ngircd.sh install || echo "setup.sh: ngircd not installed; the IRC server tests will fail" >&2
    # ... and a network with services for the identity tests: InspIRCd + Atheme (Debian).
    bash scripts/ircservices.sh install || echo "setup.sh: inspircd/atheme not installed; the IRC services tests will fail" >&2
    # The console's browser tests: Debian's chromium and chromedriver (apt-get, only when missing).
    bash scripts/chromium.sh install || echo "setup.sh: chromium not installed; the console browser tests will fail" >&2
    wait "$synapse"
    for p in "${players[@]}"; do
        wait "$p" || echo "setup.sh: the matrix-js-sdk players did not install; their tests will fail" >&2
    done
fi
