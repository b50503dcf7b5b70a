#!/usr/bin/env bash
# The moderators' read-only web console (docs/console.md) on the main job's database:
#   bash scripts/console.sh [--db FILE] [--host 127.0.0.1] [--port 8001]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --console
export REFEREE_DB="${REFEREE_DB:-$PWD/data/referee.db}"  # the database scripts/run.sh plays on
exec .venv/bin/referee console "$@"
