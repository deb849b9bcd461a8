#!/bin/sh
# Install Debian packages for the test suite: apt-get as root, or through sudo.
# Usage: sh scripts/apt-install.sh PACKAGE...
set -eu
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "$@"
