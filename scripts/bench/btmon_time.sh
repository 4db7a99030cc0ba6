#!/usr/bin/env bash
# Wall time of BlueZ's `btmon -r FILE > /dev/null`: the reference decoder figure Vigil's own
# btsnoop reader is compared with (docs/bumble-peer.md §Reference figures: 0.66-0.92 s for
# 100,000 legacy reports).
# Installs bluez via apt only when btmon is absent and we are root with apt; otherwise says
# it is unavailable and exits 0 (a missing reference tool is not a failed benchmark).
set -euo pipefail

if [[ $# -ne 1 || ! -f "$1" ]]; then
    echo "usage: $0 FILE.btsnoop" >&2
    exit 2
fi
file="$1"

if ! command -v btmon >/dev/null 2>&1; then
    if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
        echo "btmon_time: installing bluez for btmon" >&2
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bluez >&2
    fi
fi
if ! command -v btmon >/dev/null 2>&1; then
    echo "btmon_unavailable=1 (install bluez, needs root)"
    exit 0
fi

start=$(date +%s%N)
set +e
btmon -r "$file" > /dev/null 2>&1
status=$?
set -e
end=$(date +%s%N)
echo "btmon_version=$(btmon --version 2>/dev/null || echo unknown)"
echo "btmon_exit=$status"
# btmon 5.66 segfaults on some GATT discovery traffic (docs/bumble-peer.md): report, do not hide.
if [[ $status -ne 0 ]]; then
    echo "btmon_time: btmon exited $status; the time below covers a partial decode" >&2
fi
awk -v ns=$((end - start)) 'BEGIN { printf "btmon_wall_seconds=%.3f\n", ns / 1e9 }'
