#!/usr/bin/env bash
# Headless Chromium for the console's browser tests (tests/test_console.py), from Debian's
# packages: chromium, chromium-driver (Selenium drives it) and a Japanese font (screenshots).
# Nothing downloads a browser build of its own. Idempotent.
#   scripts/chromium.sh install   apt-get install what is missing (needs root or sudo)
#   scripts/chromium.sh path      print the chromium and chromedriver paths (exit 1 if missing)
set -euo pipefail
find_bin() {
    for b in "$@"; do
        command -v "$b" 2>/dev/null && return 0
        [ -x "/usr/bin/$b" ] && { echo "/usr/bin/$b"; return 0; }
    done
    return 0
}
have_all() {
    [ -n "$(find_bin chromium chromium-browser)" ] && [ -n "$(find_bin chromedriver)" ] \
        && fc-list :lang=ja 2>/dev/null | grep -q .
}
case "${1:-install}" in
install)
    if have_all; then
        exit 0
    fi
    export DEBIAN_FRONTEND=noninteractive
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    pkgs="chromium chromium-driver fonts-ipafont-gothic"
    if ! $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -q $pkgs >/dev/null 2>&1; then
        $SUDO apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null
        $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -q $pkgs >/dev/null
    fi
    have_all || { echo "chromium.sh: chromium, chromedriver or a Japanese font did not install" >&2; exit 1; }
    ;;
path)
    c="$(find_bin chromium chromium-browser)"
    d="$(find_bin chromedriver)"
    [ -n "$c" ] && [ -n "$d" ] || exit 1
    echo "$c"
    echo "$d"
    ;;
*)
    echo "usage: $0 install|path" >&2
    exit 2
    ;;
esac
