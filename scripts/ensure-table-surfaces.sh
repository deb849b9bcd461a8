#!/bin/sh
# Install the photographs of real table surfaces that vision/real_tables.py lays under
# rendered cards (GIMP's patterns, Debian's gimp-data), when missing. Quickly a no-op when
# they are there.
set -eu
cd "$(dirname "$0")/.."
if [ ! -f /usr/share/gimp/2.0/patterns/Fabric/burlap.pat ]; then
    sh scripts/apt-install.sh gimp-data
fi
