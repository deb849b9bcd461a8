#!/bin/sh
# Install WebKit for the browser tests when it is missing: Debian's WebKitWebDriver
# (webkit2gtk-driver), the MiniBrowser of libwebkit2gtk-4.1-0 (started with --automation)
# and xvfb-run (xvfb, xauth) for a display. Selenium's WebKitGTK driver drives them; no
# browser build is downloaded. Quickly a no-op when everything is there.
set -eu
minibrowser() {
    for path in /usr/lib/*/webkit2gtk-4.1/MiniBrowser; do
        if [ -x "$path" ]; then echo "$path"; return 0; fi
    done
    return 1
}
if [ -x /usr/bin/WebKitWebDriver ] && minibrowser >/dev/null && [ -x /usr/bin/xvfb-run ] \
        && command -v xauth >/dev/null 2>&1; then
    exit 0
fi
sh "$(dirname "$0")/apt-install.sh" webkit2gtk-driver libwebkit2gtk-4.1-0 xvfb xauth fonts-dejavu-core
found=$(minibrowser) || { echo "ensure-webkit: no MiniBrowser under /usr/lib/*/webkit2gtk-4.1/" >&2; exit 1; }
echo "ensure-webkit: WebKitWebDriver and $found are installed"
