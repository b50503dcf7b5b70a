#!/usr/bin/env bash
# The main job on the embedded default: a terminal table on SQLite under data/, no server needed.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/referee play "$@"
