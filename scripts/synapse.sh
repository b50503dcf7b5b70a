#!/usr/bin/env bash
# A local Synapse for trying the Matrix bot or running its tests by hand:
#   scripts/synapse.sh install
#   scripts/synapse.sh run [--port N] [--dir D] [--user NAME:PASSWORD ...]
set -euo pipefail
cd "$(dirname "$0")/.."
exec .venv/bin/python tests/matrix/synapse_server.py "$@"
