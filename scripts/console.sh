#!/usr/bin/env bash
# The moderators' read-only web console (docs/console.md) on the main job's database:
#   bash scripts/console.sh [--db FILE] [--host 127.0.0.1] [--port 8001] [--keep FILE]
# The console database is kept in data/console.db (unless --keep names another file): a restart
# reads only what the log gained since, and serves at once when it gained nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --console
export REFEREE_DB="${REFEREE_DB:-$PWD/data/referee.db}"  # the database scripts/run.sh plays on
mkdir -p data
keep=(--keep "$PWD/data/console.db")
for arg in "$@"; do
    case "$arg" in --keep|--keep=*) keep=() ;; esac
done
exec .venv/bin/referee console "${keep[@]}" "$@"
