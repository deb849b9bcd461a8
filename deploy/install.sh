#!/usr/bin/env bash
# Install Table Companion as a service on Raspberry Pi OS (Bookworm), from this checkout.
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
# python3-lgpio (gpiozero's back-end on the Pi 5) and python3-picamera2 (ribbon cameras)
# come from Raspberry Pi OS; the venv sees them through --system-site-packages.
system apt-get install -y --no-install-recommends python3-venv python3-dev python3-lgpio \
  python3-picamera2 libgl1

echo "== user $USER_NAME"
if [ -z "$ROOT" ] && ! id -u "$USER_NAME" >/dev/null 2>&1; then
  useradd --system --home-dir "$DATA" --shell /usr/sbin/nologin "$USER_NAME"
elif [ -n "$ROOT" ]; then
  echo "would run: useradd --system --home-dir $DATA --shell /usr/sbin/nologin $USER_NAME"
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
tar -C "$SRC" --exclude=.venv --exclude=.git --exclude=node_modules --exclude=__pycache__ \
  --exclude=data -cf - . | tar -C "$ROOT$PREFIX" -xf -
system python3 -m venv --system-site-packages "$PREFIX/.venv"
# Editable, so the simulator finds firmware/ beside hardware/ in the checkout.
system "$PREFIX/.venv/bin/pip" install --quiet -e "$PREFIX"

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
system udevadm control --reload-rules
system udevadm trigger --subsystem-match=tty
system systemctl daemon-reload
system systemctl enable table-companion.service
if [ "$START" -eq 1 ]; then
  system systemctl restart table-companion.service
  echo "Started. The table's address, QR code and PIN: journalctl -u table-companion -n 40"
fi
echo "Check the hardware with: sudo -u $USER_NAME $PREFIX/.venv/bin/companion doctor --config $CONF/companion.toml"
