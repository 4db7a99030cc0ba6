#!/usr/bin/env bash
# Builds the release binaries (scripts/release: vigil and vigil-bench, fully static, the flags
# the appliance ships with) and runs the benchmark: every figure from the issues with
# PASS/FAIL, then a summary table. Arguments are passed on:
#   scripts/bench/run.sh                        every benchmark
#   scripts/bench/run.sh alarm-latency --crossings 2000
#   scripts/bench/run.sh adverts --count 100000
#   scripts/bench/run.sh resident               vigil run over 100,000 notifications
#   scripts/bench/run.sh soak --hours 24        the 24-hour soak alone
# With no arguments, every benchmark and then the 24-hour soak (it has its own report).
# Exit status: 1 if any figure or the soak fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

echo "== build (scripts/release --bench)"
scripts/release --bench
if (($# > 0)); then
    exec out/vigil-bench --repo "$PWD" --vigil "$PWD/out/vigil" "$@"
fi
status=0
out/vigil-bench --repo "$PWD" --vigil "$PWD/out/vigil" || status=$?
echo
out/vigil-bench soak --hours 24 || status=$?
exit "$status"
