#!/bin/sh
# Install Debian's chromium for the browser tests when it is missing.
# Playwright drives it through executable_path; `playwright install` is never used
# (it downloads a browser build from the internet).
set -eu
if [ -x /usr/bin/chromium ]; then
    exit 0
fi
sh "$(dirname "$0")/apt-install.sh" chromium fonts-dejavu-core
/usr/bin/chromium --version
