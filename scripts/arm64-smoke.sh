#!/usr/bin/env bash
# The arm64 smoke check (make arm64-smoke): the companion installed and run as on a 64-bit Pi,
# in a Debian 12 (bookworm) arm64 chroot under qemu-user emulation. Needs root and the network
# (a Debian mirror and PyPI); takes minutes, so it is not part of `make test`.
#
#   sudo scripts/arm64-smoke.sh
#
# It builds the chroot with debootstrap and qemu-user-static (both from Debian apt), installs
# the project with deploy/install.sh as a Pi user would, then runs, as the service's user:
# `companion doctor`, `companion replay`, a short `serve` with the simulated board and camera
# answering / and /api/state (and a stop right after start, which must finish within the
# unit's TimeoutStopSec), `vision detect` on one rendered image, and imports Debian's
# python3-pywt (compiled against the distribution's numpy) inside the service's venv.
# Every step prints PASS or FAIL; the exit status is 0 only when all pass.
#
# Settings (environment):
#   ARM64_SMOKE_DIR     work folder (default /var/tmp/table-companion-arm64-smoke); the
#                       downloaded .debs and the base system are kept in it between runs
#   ARM64_SMOKE_FRESH=1 debootstrap the base system again instead of reusing it
#   ARM64_SMOKE_MIRROR  Debian mirror (default: the first one in this machine's apt sources)
#   ARM64_SMOKE_KEEP=1  keep the chroot afterwards (to look around: sudo chroot DIR/root bash)
# Timings under emulation are printed for information only: they say nothing about a Pi.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
WORK=${ARM64_SMOKE_DIR:-/var/tmp/table-companion-arm64-smoke}
CHROOT="$WORK/root"
SUITE=bookworm
KEEP=${ARM64_SMOKE_KEEP:-0}
# The system packages a Pi's camera stack stands on, from the distribution: python3-numpy and
# python3-pywt (compiled against that numpy; Raspberry Pi OS's simplejpeg is the same case).
CHROOT_PACKAGES=python3,python3-venv,python3-numpy,python3-pywt,ca-certificates

if [ "$(id -u)" -ne 0 ]; then
  echo "arm64-smoke: run as root (sudo make arm64-smoke): debootstrap and chroot need it" >&2
  exit 2
fi

# -- the host's tools -------------------------------------------------------------------------
if ! command -v debootstrap >/dev/null || ! command -v qemu-aarch64-static >/dev/null; then
  sh "$SRC/scripts/apt-install.sh" debootstrap qemu-user-static binfmt-support
fi
# qemu runs the chroot's arm64 programs through the kernel's binfmt_misc; inside a container
# it may need mounting, and the registration enabling, by hand.
if [ ! -e /proc/sys/fs/binfmt_misc/status ]; then
  mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
fi
if [ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]; then
  update-binfmts --enable qemu-aarch64 || update-binfmts --import qemu-aarch64
fi

# -- the mirror: the one this machine already uses --------------------------------------------
host_mirror() {
  cat /etc/apt/sources.list /etc/apt/sources.list.d/*.sources /etc/apt/sources.list.d/*.list \
    2>/dev/null | grep -E '^(deb |URIs:)' | grep -o -E 'https?://[^ ]+' \
    | grep -v -E 'security|backports' | grep -E '/debian/?$' | head -n 1 || true
}
MIRROR=${ARM64_SMOKE_MIRROR:-$(host_mirror)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}

# -- results ------------------------------------------------------------------------------------
FAILED=0
RESULTS=()
record() {  # record PASS|FAIL "what" "detail"
  RESULTS+=("$1  $2${3:+ ($3)}")
  echo "== $1: $2${3:+ ($3)}"
  if [ "$1" = FAIL ]; then FAILED=1; fi
}
# Timings under emulation go to the console and timings.txt, never into the result: they say
# nothing about a Pi.
timing() {
  echo "   (under emulation: $*)"
  echo "$*" >>"$WORK/timings.txt"
}
now() { date +%s.%N; }
since() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.1f s", b - a }'; }

MOUNTED=()
SUMMARY=0
cleanup() {
  local i pid
  # anything still running in the chroot (a serve of a failed step) goes first
  for pid in $(ls /proc | grep -E '^[0-9]+$'); do
    if [ "$(readlink "/proc/$pid/root" 2>/dev/null)" = "$CHROOT" ]; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  if [ "$SUMMARY" = 0 ] && [ ${#RESULTS[@]} -gt 0 ]; then
    echo "arm64 smoke check: stopped early:"; printf '  %s\n' "${RESULTS[@]}"
  fi
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do umount -l "${MOUNTED[i]}" 2>/dev/null || true; done
  if [ "$KEEP" != 1 ] && [ -d "$CHROOT" ]; then rm -rf --one-file-system "$CHROOT"; fi
}
trap cleanup EXIT

# -- the chroot ---------------------------------------------------------------------------------
mkdir -p "$WORK/debs"
: >"$WORK/timings.txt"
rm -rf --one-file-system "$CHROOT"
mkdir -p "$CHROOT"
# The base system is kept as a tarball between runs (what is checked is the project's
# install, not debootstrap); ARM64_SMOKE_FRESH=1 builds it again.
BASE="$WORK/base-$SUITE-arm64-$(echo "$CHROOT_PACKAGES" | cksum | cut -d' ' -f1).tar"
T=$(now)
if [ -f "$BASE" ] && [ "${ARM64_SMOKE_FRESH:-0}" != 1 ]; then
  tar -C "$CHROOT" -xf "$BASE"
  record PASS "arm64 $SUITE base system" "unpacked from $BASE"
else
  echo "== debootstrap $SUITE arm64 from $MIRROR into $CHROOT"
  if debootstrap --arch=arm64 --variant=minbase --cache-dir="$WORK/debs" \
       --include="$CHROOT_PACKAGES" "$SUITE" "$CHROOT" "$MIRROR" >"$WORK/debootstrap.log" 2>&1
  then
    tar -C "$CHROOT" -cf "$BASE" .
    record PASS "debootstrap arm64 $SUITE from $MIRROR"
    timing "debootstrap $(since "$T")"
  else
    tail -n 20 "$WORK/debootstrap.log"
    record FAIL "debootstrap arm64 $SUITE from $MIRROR" "see $WORK/debootstrap.log"
    exit 1
  fi
fi

for fs in proc sys dev dev/pts; do
  mkdir -p "$CHROOT/$fs"
  mount --bind "/$fs" "$CHROOT/$fs"
  MOUNTED+=("$CHROOT/$fs")
done
cp /etc/resolv.conf "$CHROOT/etc/resolv.conf"
# pip in the chroot trusts what this machine trusts (a proxy's CA, say), as apt on it does.
cp /etc/ssl/certs/ca-certificates.crt "$CHROOT/etc/ssl/certs/host-ca-certificates.crt"
echo "deb $MIRROR $SUITE main" >"$CHROOT/etc/apt/sources.list"
tar -C "$SRC" --exclude='.venv*' --exclude=.git --exclude=node_modules --exclude=__pycache__ \
  --exclude=data --exclude=.mypy_cache --exclude=.pytest_cache --exclude=.ruff_cache \
  -cf - . | (mkdir -p "$CHROOT/root/table-companion" && tar -C "$CHROOT/root/table-companion" -xf -)

# A command in the chroot with a clean environment, as root or as the service's user, in ARGV.
# chroot, setpriv and env each exec the next, so a signal to it reaches the command itself,
# as systemd's does.
chroot_argv() {  # chroot_argv USER COMMAND...
  local user=$1 home=/root
  shift
  if [ "$user" != root ]; then home=/var/lib/table-companion; fi
  ARGV=(chroot "$CHROOT" /usr/bin/setpriv --reuid="$user" --regid="$user" --init-groups
    /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
    HOME="$home" LANG=C.UTF-8 PYTHONUNBUFFERED=1 OPENBLAS_NUM_THREADS=1
    PIP_CERT=/etc/ssl/certs/host-ca-certificates.crt PIP_DISABLE_PIP_VERSION_CHECK=1
    TABLE_COMPANION_TABLE__PORT="$PORT" "$@")
}
in_chroot() {  # in_chroot [-u USER] COMMAND...
  local user=root
  if [ "$1" = -u ]; then user=$2; shift 2; fi
  chroot_argv "$user" "$@"
  "${ARGV[@]}"
}
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
VENV=/opt/table-companion/.venv
COMPANION="$VENV/bin/companion"
CONFIG=/etc/table-companion/companion.toml
# the service's own configuration; only on this machine's loopback, without mDNS
SERVE_ARGS="--host 127.0.0.1 --port $PORT --no-mdns"

# -- the install, as a Pi user runs it ----------------------------------------------------------
T=$(now)
if in_chroot bash -c 'apt-get update -q && bash /root/table-companion/deploy/install.sh --no-start' \
     >"$WORK/install.log" 2>&1; then
  record PASS "deploy/install.sh --no-start (apt, the system's numpy kept, PyPI's aarch64 wheels)"
  timing "install.sh $(since "$T")"
else
  tail -n 30 "$WORK/install.log"
  record FAIL "deploy/install.sh" "see $WORK/install.log"
  exit 1
fi
grep -E '^(note:|kept at|python3-lgpio|camera stack:)' "$WORK/install.log" || true
record PASS "runtime venv size" "$(du -sm "$CHROOT$VENV" | cut -f1) MB; numpy and pywt from Debian"

# -- the camera stack: a system module built against Debian's numpy, inside the venv ----------
if out=$(in_chroot -u companion "$VENV/bin/python" -c '
import numpy, pywt
assert numpy.__file__.startswith("/usr/lib/python3/dist-packages/"), numpy.__file__
print(f"numpy {numpy.__version__} from the system; pywt {pywt.__version__}:",
      pywt.dwt([1.0, 2.0, 3.0, 4.0], "db1")[0].round(3).tolist())' 2>&1); then
  record PASS "system python3-pywt imports in the service venv" "$out"
else
  record FAIL "system python3-pywt imports in the service venv" "$out"
fi
if out=$(in_chroot "$VENV/bin/python" /opt/table-companion/deploy/system_constraints.py \
           --check /opt/table-companion/system-constraints.txt 2>&1); then
  record PASS "nothing the camera stack needs is shadowed" "$(echo "$out" | tail -n 1)"
else
  record FAIL "nothing the camera stack needs is shadowed" "$out"
fi

# -- the commands -------------------------------------------------------------------------------
if out=$(in_chroot -u companion "$COMPANION" doctor --config "$CONFIG" --board sim --camera sim 2>&1); then
  record PASS "companion doctor (simulated board and camera)" "$(echo "$out" | grep -c ': ok') checks ok"
else
  echo "$out"
  record FAIL "companion doctor (simulated board and camera)" "$(echo "$out" | grep problem | head -n 3)"
fi

if out=$(in_chroot -u companion "$COMPANION" replay /opt/table-companion/examples/collector.jsonl 2>&1) \
   && echo "$out" | grep -q '"game"'; then
  record PASS "companion replay examples/collector.jsonl"
else
  record FAIL "companion replay examples/collector.jsonl" "$(echo "$out" | tail -n 3)"
fi

# serve: a stop at any moment of the start (the board, the camera and the deck still starting)
# must finish well inside the unit's TimeoutStopSec; a full start answers / and /api/state.
TIMEOUT_STOP=$(sed -n 's/^TimeoutStopSec=//p' "$SRC/deploy/table-companion.service")
serve() {  # SERVE is the pid of the companion itself (chroot execs it), as systemd's MainPID
  # shellcheck disable=SC2086 # SERVE_ARGS is several words
  chroot_argv companion "$COMPANION" serve --config "$CONFIG" --board sim --camera sim \
    $SERVE_ARGS
  "${ARGV[@]}" >>"$WORK/serve.log" 2>&1 &
  SERVE=$!
}
running() {  # running PID: alive and not a zombie waiting to be reaped
  local state
  state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}
stop_within_timeout() {  # stop_within_timeout WHEN: SIGTERM to $SERVE, PASS if it exits in time
  local t waited=0 took
  t=$(now)
  kill -TERM "$SERVE" 2>/dev/null || true
  while running "$SERVE" && [ "$waited" -lt $((TIMEOUT_STOP * 10)) ]; do
    sleep 0.1
    waited=$((waited + 1))
  done
  if running "$SERVE"; then
    kill -KILL "$SERVE"
    record FAIL "serve stopped $1" "still running ${TIMEOUT_STOP} s after SIGTERM"
  else
    took=$(since "$t")
    record PASS "serve stopped $1, within TimeoutStopSec=$TIMEOUT_STOP"
    timing "stop $1: exit $took after SIGTERM"
  fi
  wait "$SERVE" 2>/dev/null || true
}
: >"$WORK/serve.log"
for seconds in 2 10 30; do
  serve
  sleep "$seconds"
  stop_within_timeout "$seconds s after its start"
done

serve
T=$(now)
if out=$(in_chroot "$VENV/bin/python" - "$PORT" 2>&1 <<'PY'
import json, sys, time, urllib.request
base = f"http://127.0.0.1:{sys.argv[1]}"
deadline = time.monotonic() + 300
while True:
    try:
        page = urllib.request.urlopen(base + "/", timeout=10).read().decode()
        break
    except OSError:
        if time.monotonic() > deadline:
            raise
        time.sleep(0.5)
assert "<html" in page.lower(), page[:200]
state = json.load(urllib.request.urlopen(base + "/api/state", timeout=30))
print(f"/ is {len(page)} bytes of HTML; /api/state has {', '.join(sorted(state)[:6])}")
PY
); then
  record PASS "serve answers / and /api/state" "$out"
  timing "first answer $(since "$T") after start"
else
  tail -n 20 "$WORK/serve.log"
  record FAIL "serve answers / and /api/state" "$out"
fi
stop_within_timeout "after a full start"

# vision detect on one rendered image of the standard deck
cat >"$CHROOT/tmp/render_one.py" <<'PY'
import cv2
from vision.render import CONDITIONS, render_scene
scene = render_scene(CONDITIONS["upright"], 1)
cv2.imwrite("/tmp/scene.png", scene.image)
print("rendered:", " ".join(sorted(c.card for c in scene.cards)))
PY
T=$(now)
if rendered=$(in_chroot -u companion "$VENV/bin/python" /tmp/render_one.py 2>&1) \
   && out=$(in_chroot -u companion "$COMPANION" vision detect --deck standard /tmp/scene.png 2>&1)
then
  read_cards=$(in_chroot "$VENV/bin/python" -c 'import json, sys
print(" ".join(sorted(c["card"] for c in json.loads(sys.argv[1].splitlines()[0])["cards"])))' \
    "$out")
  want=$(echo "$rendered" | sed -n 's/^rendered: //p')
  if [ "$read_cards" = "$want" ]; then
    record PASS "vision detect on a rendered image" "read $read_cards"
  else
    record FAIL "vision detect on a rendered image" "read '$read_cards', rendered '$want'"
  fi
  timing "vision detect $(since "$T") (render and detect)"
else
  record FAIL "vision detect on a rendered image" "$(echo "$rendered $out" | tail -n 5 | tr '\n' ' ')"
fi

SUMMARY=1
echo
echo "arm64 smoke check, $(date -u +%Y-%m-%d), Debian $SUITE arm64 under qemu-user:"
printf '  %s\n' "${RESULTS[@]}" | tee "$WORK/result.txt"
if [ "$FAILED" -ne 0 ]; then
  echo "arm64 smoke check: FAILED" | tee -a "$WORK/result.txt"
  exit 1
fi
echo "arm64 smoke check: all passed" | tee -a "$WORK/result.txt"
