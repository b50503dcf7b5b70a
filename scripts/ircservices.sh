#!/usr/bin/env bash
# InspIRCd + Atheme for the IRC adapter's tests on a network with services (Debian's packages).
# Idempotent.
#   scripts/ircservices.sh install   install inspircd and atheme-services with apt-get if missing
# The tests write their own configurations and run both in the foreground on free 127.0.0.1
# ports (tests/irc/ircnet.py, Services); the packages' system services are not used.
set -euo pipefail
have() {
    { command -v inspircd >/dev/null 2>&1 || [ -x /usr/sbin/inspircd ]; } \
        && command -v atheme-services >/dev/null 2>&1
}
case "${1:-install}" in
install)
    if have; then
        exit 0
    fi
    export DEBIAN_FRONTEND=noninteractive
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    # Do not let the packages start their system-wide daemons on install.
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
        $SUDO chmod +x /usr/sbin/policy-rc.d
        trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    if ! $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -q inspircd atheme-services >/dev/null 2>&1; then
        $SUDO apt-get -o DPkg::Lock::Timeout=300 update -q >/dev/null
        $SUDO apt-get -o DPkg::Lock::Timeout=300 install -y -q inspircd atheme-services >/dev/null
    fi
    have || { echo "ircservices.sh: inspircd/atheme-services did not install" >&2; exit 1; }
    ;;
*)
    echo "usage: $0 install" >&2
    exit 2
    ;;
esac
