#!/usr/bin/env bash
# Builds vigil-bench (and vigil, for the idle figures) in release mode and runs the benchmark:
# every figure from the issue with PASS/FAIL, then a summary table. Arguments are passed on:
#   scripts/bench/run.sh                 all four benchmarks
#   scripts/bench/run.sh alarm-latency --crossings 2000
#   scripts/bench/run.sh adverts --count 100000
# The idle benchmark is skipped, and says so, when the vigil binary cannot be built.
# Exit status: vigil-bench's (1 if any figure fails).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# --static-swift-stdlib: the appliance ships as one static executable, and resident memory is
# one of the figures (dynamic Swift libraries add ~3 MB of mapped pages to it).
echo "== build (release, static Swift runtime)"
swift build -c release --static-swift-stdlib --product vigil-bench
# vigil may not build on every branch; the benchmark reports idle as skipped rather than fail here.
if ! swift build -c release --static-swift-stdlib --product vigil; then
    echo "run.sh: vigil did not build; the idle benchmark will be skipped" >&2
    rm -f .build/release/vigil
fi

exec .build/release/vigil-bench --repo "$PWD" --vigil "$PWD/.build/release/vigil" "$@"
