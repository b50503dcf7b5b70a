#!/usr/bin/env bash
# The main job on the embedded default: a terminal table on SQLite under data/, no server needed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The checkout's data/referee.db, not the user's data directory (REFEREE_DB or --db override).
export REFEREE_DB="${REFEREE_DB:-$PWD/data/referee.db}"
exec .venv/bin/referee play "$@"
