#!/usr/bin/env bash
# ngIRCd for the IRC adapter's tests (Debian's package). Idempotent.
#   scripts/ngircd.sh install   install ngircd with apt-get if it is missing (needs root)
#   scripts/ngircd.sh path      print the ngircd binary's path (exit 1 if missing)
# The tests write their own configuration and run the server in the foreground (-n) on a free
# 127.0.0.1 port (tests/irc/conftest.py); the package's system service is not used.
set -euo pipefail
find_ngircd() {
    command -v ngircd 2>/dev/null || { [ -x /usr/sbin/ngircd ] && echo /usr/sbin/ngircd; } || true
}
case "${1:-install}" in
install)
    if [ -n "$(find_ngircd)" ]; then
        exit 0
    fi
    export DEBIAN_FRONTEND=noninteractive
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    # Do not let the package start its system-wide daemon (port 6667) on install.
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
        $SUDO chmod +x /usr/sbin/policy-rc.d
        trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    if ! $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -q ngircd >/dev/null 2>&1; then
        $SUDO apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null
        $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -q ngircd >/dev/null
    fi
    [ -n "$(find_ngircd)" ] || { echo "ngircd.sh: ngircd did not install" >&2; exit 1; }
    ;;
path)
    p="$(find_ngircd)"
    [ -n "$p" ] || exit 1
    echo "$p"
    ;;
*)
    echo "usage: $0 install|path" >&2
    exit 2
    ;;
esac
