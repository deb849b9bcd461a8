#!/bin/sh
# Install Debian's chromium for the browser tests when it is missing.
# Playwright drives it through executable_path; `playwright install` is never used
# (it downloads a browser build from the internet).
set -eu
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    SUDO=sudo
else
    SUDO=
fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends chromium fonts-dejavu-core
/usr/bin/chromium --version
