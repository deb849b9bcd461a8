#!/bin/sh
# Install the published card designs that vision/designs.py renders, when missing:
# Debian's aisleriot card themes (gnome-cards-data, aisleriot), rsvg-convert (librsvg2-bin)
# and the npm SVG decks of tools/card-designs (npm ci from its committed lock file).
# Quickly a no-op when everything is there. Never install kdegames-card-data*: those
# decks are kept apart for independent scoring.
set -eu
cd "$(dirname "$0")/.."
if [ ! -x /usr/bin/rsvg-convert ] || [ ! -f /usr/share/aisleriot/cards/anglo.svgz ]; then
    sh scripts/apt-install.sh gnome-cards-data aisleriot librsvg2-bin
fi
# npm ci again only when the lock file is newer than what it installed
if [ ! -f tools/card-designs/node_modules/.package-lock.json ] \
        || [ tools/card-designs/package-lock.json -nt tools/card-designs/node_modules/.package-lock.json ]; then
    npm ci --prefix tools/card-designs --no-audit --no-fund --loglevel=error
fi
