#!/bin/sh
# Install WebKit for the browser tests when it is missing: Debian's WebKitWebDriver
# (webkit2gtk-driver), the MiniBrowser of libwebkit2gtk-4.1-0 (started with --automation)
# and xvfb-run (xvfb, xauth) for a display. Selenium's WebKitGTK driver drives them; no
# browser build is downloaded. Quickly a no-op when everything is there.
set -eu
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
minibrowser=/usr/lib/$multiarch/webkit2gtk-4.1/MiniBrowser
if [ -x /usr/bin/WebKitWebDriver ] && [ -x "$minibrowser" ] && [ -x /usr/bin/xvfb-run ] \
        && command -v xauth >/dev/null 2>&1; then
    exit 0
fi
sh "$(dirname "$0")/apt-install.sh" webkit2gtk-driver libwebkit2gtk-4.1-0 xvfb xauth fonts-dejavu-core
test -x "$minibrowser" || { echo "ensure-webkit: $minibrowser is missing after the install" >&2; exit 1; }
echo "ensure-webkit: WebKitWebDriver and $minibrowser are installed"
