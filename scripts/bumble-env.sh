#!/usr/bin/env bash
# Creates or updates the Bumble virtual-controller environment used by the interop rigs
# (Tests/Rigs/*.py) and benchmarks (scripts/bench/*.py), at <repo>/.venv-bumble; it also holds
# py-nightscout, the Nightscout client library Tests/Rigs/check_nightscout_client.py reads
# Vigil's Nightscout API with (docs/nightscout-api.md), and Selenium, which Tests/Rigs/web_browser.py
# drives Debian's Chromium with (docs/web.md), and `cryptography`, which Tests/Rigs/test_ca.py makes the
# network rigs' test CA and certificates with (docs/network-test-servers.md).
#
# Idempotent: when the venv already holds the pinned Bumble version this is a fast no-op
# (one `python -c` import check, no pip traffic). Prints the venv's python path as its last
# line on stdout, so callers can do: PY=$(scripts/bumble-env.sh | tail -n1)
#
# The venv is kept out of git (.gitignore). Bumble is pinned because the rigs rely on the
# quirks of its virtual controller as observed in this exact version
# (see docs/bumble-peer.md); bump deliberately and re-run Tests/Rigs/check_rig.py.
set -euo pipefail

BUMBLE_VERSION="${BUMBLE_VERSION:-0.0.236}"
# Pinned like Bumble: the check expects this release's models (its SGV needs `delta`).
PY_NIGHTSCOUT_VERSION="${PY_NIGHTSCOUT_VERSION:-1.3.3}"
# Pinned so the browser checks do not change under us; it is given chromedriver's path, so its
# Selenium Manager never downloads a driver.
SELENIUM_VERSION="${SELENIUM_VERSION:-4.51.0}"
# Pinned at what Bumble's own requirement resolved to here, so the test CA's certificates (and the G7
# rig's, Tests/Rigs/g7_credentials.py) are made by a known release.
CRYPTOGRAPHY_VERSION="${CRYPTOGRAPHY_VERSION:-50.0.2}"

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${VIGIL_BUMBLE_VENV:-$repo_root/.venv-bumble}"
py="$venv/bin/python"

log() { echo "bumble-env: $*" >&2; }

installed_version() {
    # Ask the venv itself: importlib.metadata does not import the package (fast) and fails
    # cleanly when it is absent.
    "$py" -c "import importlib.metadata as m; print(m.version('${1:-bumble}'))" 2>/dev/null || true
}

if [[ -x "$py" ]] && [[ "$(installed_version)" == "$BUMBLE_VERSION" ]] \
    && [[ "$(installed_version py-nightscout)" == "$PY_NIGHTSCOUT_VERSION" ]] \
    && [[ "$(installed_version selenium)" == "$SELENIUM_VERSION" ]] \
    && [[ "$(installed_version cryptography)" == "$CRYPTOGRAPHY_VERSION" ]]; then
    echo "$py"
    exit 0
fi

if ! command -v python3 >/dev/null 2>&1; then
    log "python3 not found; install Python 3.10+ first"
    exit 1
fi

if [[ ! -x "$py" ]]; then
    # Debian splits ensurepip into python3-venv; without it `python3 -m venv` leaves a venv
    # with no pip. Install it only when we are allowed to (root, apt present).
    if ! python3 -c 'import ensurepip' >/dev/null 2>&1; then
        if [[ "$(id -u)" == "0" ]] && command -v apt-get >/dev/null 2>&1; then
            log "ensurepip missing: installing python3-venv"
            DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >&2
        else
            log "python3 lacks ensurepip: install python3-venv (needs root) and re-run"
            exit 1
        fi
    fi
    log "creating $venv"
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
fi

log "installing bumble==$BUMBLE_VERSION, py-nightscout==$PY_NIGHTSCOUT_VERSION, selenium==$SELENIUM_VERSION and cryptography==$CRYPTOGRAPHY_VERSION into $venv"
"$py" -m pip install --disable-pip-version-check --quiet "bumble==$BUMBLE_VERSION" \
    "py-nightscout==$PY_NIGHTSCOUT_VERSION" "selenium==$SELENIUM_VERSION" \
    "cryptography==$CRYPTOGRAPHY_VERSION" >&2

got="$(installed_version)"
if [[ "$got" != "$BUMBLE_VERSION" ]]; then
    log "expected bumble $BUMBLE_VERSION, found '${got:-none}'"
    exit 1
fi
got="$(installed_version py-nightscout)"
if [[ "$got" != "$PY_NIGHTSCOUT_VERSION" ]]; then
    log "expected py-nightscout $PY_NIGHTSCOUT_VERSION, found '${got:-none}'"
    exit 1
fi
got="$(installed_version selenium)"
if [[ "$got" != "$SELENIUM_VERSION" ]]; then
    log "expected selenium $SELENIUM_VERSION, found '${got:-none}'"
    exit 1
fi
got="$(installed_version cryptography)"
if [[ "$got" != "$CRYPTOGRAPHY_VERSION" ]]; then
    log "expected cryptography $CRYPTOGRAPHY_VERSION, found '${got:-none}'"
    exit 1
fi
echo "$py"
