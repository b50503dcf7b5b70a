#!/usr/bin/env bash
# The wheel stands alone: build it, install it into a clean venv outside the checkout, and run
# `referee hand`, `referee parse` and `referee replay` (on the example transcript the package
# carries, with and without --db) from a directory that is not the checkout. Part of
# scripts/test.sh (so of CI); needs the index the project's dependencies come from.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
PY=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/referee-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
fail() { echo "wheel check: $*" >&2; exit 1; }
# Built from the repository's files alone (tracked or not ignored), never from a stale build/.
mkdir "$work/src"
git ls-files -z --cached --others --exclude-standard | tar --null -cf - -T - | tar -xf - -C "$work/src"
.venv/bin/python -m pip wheel -qq --no-deps --wheel-dir "$work/dist" "$work/src"
if "$PY" -m zipfile -l "$work"/dist/referee-*.whl | grep -q "referee/adapters/matrix_synapse"; then
    fail "the test homeserver harness is in the wheel"
fi
# The clean venv gets no pip of its own (ensurepip is seconds of unpacking): the checkout's pip
# installs into it, resolving the wheel's dependencies from the index alone.
"$PY" -m venv --without-pip "$work/venv"
.venv/bin/python -m pip --python "$work/venv/bin/python" install -qq --disable-pip-version-check \
    "$work"/dist/referee-*.whl
mkdir "$work/elsewhere"
cd "$work/elsewhere"
export HOME="$work/elsewhere" REFEREE_DB="$work/elsewhere/referee.db"  # nothing of the user's
ref="$work/venv/bin/referee"
found=$("$work/venv/bin/python" -c 'import referee; print(referee.__file__)')
case "$found" in "$checkout"/*) fail "imported the checkout ($found), not the wheel";; esac
out=$("$ref" hand --game omaha --board "Ts 9s 8c 2h 3h" "Ah Kh Qd Jd" "9h 9d 8s 7s") \
    || fail "referee hand failed"
grep -q '"class": "straight"' <<<"$out" && grep -q '"winners": \[0\]' <<<"$out" \
    || fail "referee hand: $out"
out=$("$ref" parse --game omaha "メイク１８００") || fail "referee parse failed"
grep -q '"to": 1800' <<<"$out" || fail "referee parse: $out"
example=$("$work/venv/bin/python" -c \
    'from referee.resources import EXAMPLES; print(EXAMPLES / "omaha-example.txt")')
case "$example" in "$checkout"/*) fail "the example is the checkout's ($example)";; esac
"$ref" replay "$example" > replay.jsonl || fail "referee replay failed"
grep -q '"event": *"hand_end"' replay.jsonl || fail "referee replay: no hand_end"
"$ref" replay --db "$work/elsewhere/r.db" "$example" > replay-db.jsonl \
    || fail "referee replay --db failed"
cmp -s replay.jsonl replay-db.jsonl || fail "replay with --db printed other events"
"$ref" check > /dev/null 2>&1 && fail "check found a database at REFEREE_DB before any"
"$ref" check --db "$work/elsewhere/r.db" > /dev/null || fail "referee check of the replay's db"
# The bots without their extras: one line naming the extra, exit 2, never a traceback.
for bot in matrix irc; do
    set +e
    err=$("$ref" "$bot" 2>&1 >/dev/null)
    code=$?
    set -e
    [ "$code" = 2 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q "referee\[$bot\]" <<<"$err" \
        || fail "referee $bot without its extra: exit $code: $err"
done
echo "wheel check: $(basename "$work"/dist/referee-*.whl) runs from a clean venv:" \
    "hand, parse, replay ($(wc -l < replay.jsonl) events), replay --db, check"
