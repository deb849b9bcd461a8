#!/usr/bin/env bash
# Install Table Companion as a service on Raspberry Pi OS (Bookworm), or plain Debian 12 arm64,
# from this checkout.
#
#   sudo deploy/install.sh            # install, enable and start the service
#   sudo deploy/install.sh --no-start # install and enable only
#   deploy/install.sh --root DIR      # stage every file under DIR and only print the
#                                     # system steps (users, apt, udev, systemd): for tests
#
# Safe to run again: it updates the code and the unit, and keeps an existing config.
set -euo pipefail

ROOT=""
START=1
SRC=$(cd "$(dirname "$0")/.." && pwd)
while [ $# -gt 0 ]; do
  case "$1" in
    --root) ROOT=${2:?--root needs a directory}; shift 2 ;;
    --no-start) START=0; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1 (expected --root DIR or --no-start)" >&2; exit 2 ;;
  esac
done

PREFIX=/opt/table-companion
DATA=/var/lib/table-companion
CONF=/etc/table-companion
USER_NAME=companion

# System steps run for real only on a real install; a staged install prints them.
system() {
  if [ -n "$ROOT" ]; then
    echo "would run: $*"
  else
    "$@"
  fi
}

if [ -z "$ROOT" ] && [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: run as root (sudo deploy/install.sh), or stage with --root DIR" >&2
  exit 2
fi

echo "== packages"
# Whether this system's package sources offer PACKAGE (Raspberry Pi OS has more than Debian).
apt_offers() {
  command -v apt-cache >/dev/null 2>&1 || return 1
  apt-cache policy "$1" 2>/dev/null | grep -q '^  Candidate: [^(]'
}
# The distribution's numpy: the venv uses it (it is what the system's compiled modules, and
# picamera2's, are built against) instead of a second, larger copy from PyPI.
PACKAGES="python3-venv python3-numpy"
# lgpio is gpiozero's back-end (also on the Pi 5): the distribution's where it has one
# (Raspberry Pi OS), else PyPI's wheel (plain Debian arm64), through the [pi] extra.
EXTRAS=""
if apt_offers python3-lgpio; then
  PACKAGES="$PACKAGES python3-lgpio"
else
  EXTRAS="[pi]"
  echo "python3-lgpio is not in this system's package sources: lgpio comes from PyPI"
fi
# picamera2 (ribbon-cable cameras) exists only in Raspberry Pi OS's own repository.
if apt_offers python3-picamera2; then
  PACKAGES="$PACKAGES python3-picamera2"
else
  echo "note: python3-picamera2 is not in this system's package sources; the Pi camera" \
    "(ribbon cable) needs Raspberry Pi OS. A USB webcam works here: [camera] source = \"webcam\""
fi
# shellcheck disable=SC2086 # one word per package
system apt-get install -y --no-install-recommends $PACKAGES

echo "== user $USER_NAME"
if [ -z "$ROOT" ] && ! id -u "$USER_NAME" >/dev/null 2>&1; then
  useradd --system --home-dir "$DATA" --shell /usr/sbin/nologin "$USER_NAME"
elif [ -n "$ROOT" ]; then
  echo "would run: useradd --system --home-dir $DATA --shell /usr/sbin/nologin $USER_NAME"
fi
# Raspberry Pi OS has a gpio group (its udev rules give it /dev/gpiochip*); plain Debian has
# not, and systemd refuses a unit whose SupplementaryGroups names a missing group.
if [ -z "$ROOT" ] && ! getent group gpio >/dev/null; then
  groupadd --system gpio
elif [ -n "$ROOT" ]; then
  echo "would run: groupadd --system gpio (where the system has no gpio group)"
fi
for group in dialout gpio video; do
  if [ -n "$ROOT" ] || getent group "$group" >/dev/null; then
    system usermod -aG "$group" "$USER_NAME"
  fi
done

echo "== code in $ROOT$PREFIX"
install -d "$ROOT$PREFIX" "$ROOT$DATA" "$ROOT$CONF" \
  "$ROOT/etc/systemd/system" "$ROOT/etc/udev/rules.d"
# Copy the checkout without its venv, caches or the git history.
tar -C "$SRC" --exclude='.venv*' --exclude=.git --exclude=node_modules --exclude=__pycache__ \
  --exclude=data -cf - . | tar -C "$ROOT$PREFIX" -xf -
# --system-site-packages: the venv sees picamera2 and lgpio from the system. The system's
# numpy (and any compiled module the camera stack loads) is pinned at the version installed,
# so pip never puts a second numpy in the venv that would shadow the one picamera2's
# simplejpeg is built against (docs/raspberry-pi.md, "The camera stack").
# --clear: a venv from an earlier install (with its own numpy, or the development tools an old
# `make flash` added) starts again from nothing.
system python3 -m venv --clear --system-site-packages "$PREFIX/.venv"
if [ -n "$ROOT" ]; then
  python3 "$SRC/deploy/system_constraints.py" >"$ROOT$PREFIX/system-constraints.txt"
else
  python3 "$PREFIX/deploy/system_constraints.py" >"$PREFIX/system-constraints.txt"
fi
pins=$(grep -v "^#" "$ROOT$PREFIX/system-constraints.txt" | tr "\n" " " || true)
echo "kept at the system's versions: ${pins:-nothing (the system has no numpy)}"
# The runtime only (no [dev] tools). Editable, so the simulator finds firmware/ beside
# hardware/ in the checkout.
system "$PREFIX/.venv/bin/python" -m pip install --quiet --upgrade pip
system "$PREFIX/.venv/bin/python" -m pip install --quiet -c "$PREFIX/system-constraints.txt" \
  -e "$PREFIX$EXTRAS"
# The table runs without the Pi camera (webcam, phones), so a camera stack that does not
# import is a loud warning, not a failed install; `companion doctor` says it again.
if ! system "$PREFIX/.venv/bin/python" "$PREFIX/deploy/system_constraints.py" \
     --check "$PREFIX/system-constraints.txt"; then
  echo "warning: the Pi camera will not work until the problem above is fixed" >&2
fi

echo "== configuration in $ROOT$CONF"
if [ ! -f "$ROOT$CONF/companion.toml" ]; then
  install -m 0644 "$SRC/deploy/companion.toml" "$ROOT$CONF/companion.toml"
else
  echo "keeping the existing $CONF/companion.toml"
fi
system chown -R "$USER_NAME:$USER_NAME" "$DATA"

echo "== udev rule and systemd unit"
install -m 0644 "$SRC/deploy/99-table-companion.rules" "$ROOT/etc/udev/rules.d/"
install -m 0644 "$SRC/deploy/table-companion.service" "$ROOT/etc/systemd/system/"
if [ -n "$ROOT" ] || [ -d /run/systemd/system ]; then
  system udevadm control --reload-rules
  system udevadm trigger --subsystem-match=tty --subsystem-match=gpio
  system systemctl daemon-reload
  system systemctl enable table-companion.service
  if [ "$START" -eq 1 ]; then
    system systemctl restart table-companion.service
    echo "Started. The table's address, QR code and PIN: journalctl -u table-companion -n 40"
  fi
else
  # A chroot or an image being built: systemd is not running, so nothing is reloaded or
  # started; `systemctl enable` works offline and the service starts at the next boot.
  if command -v systemctl >/dev/null 2>&1; then
    systemctl enable table-companion.service
  fi
  echo "systemd is not running here: the service is installed and starts at the next boot"
fi
echo "Check the hardware with: sudo -u $USER_NAME $PREFIX/.venv/bin/companion doctor --config $CONF/companion.toml"
