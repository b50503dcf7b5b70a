#!/usr/bin/env bash
# The moderators' read-only web console (docs/console.md) on the main job's database:
#   bash scripts/console.sh [--db FILE] [--host 127.0.0.1] [--port 8001]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --console
exec .venv/bin/referee console "$@"
