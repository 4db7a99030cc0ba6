"""Vigil's Nightscout API read by a Nightscout client no one here wrote: py-nightscout
(PyPI `py-nightscout`, the library Home Assistant's Nightscout integration uses), pinned in
scripts/bumble-env.sh.

The documents come from Vigil's own module: the Swift test `NightscoutClientDocumentsTests`
writes every endpoint's answer to the fixture morning into a directory, with `served.tsv`
(request path -> file) and `api-secret.txt` (the header value the module accepted). This script
serves those files over HTTP on 127.0.0.1, refusing any request whose `api-secret` is not that
value as the module would, and lets the library fetch and parse them with its own code: URLs,
the SHA-1 of the secret, JSON, dates.

    PY=$(scripts/bumble-env.sh | tail -n1)
    $PY Tests/Rigs/check_nightscout_client.py              # runs the Swift test itself (built tests)
    $PY Tests/Rigs/check_nightscout_client.py --documents DIR   # documents written earlier
    $PY Tests/Rigs/check_nightscout_client.py --live URL --secret TOKEN --expect-sgv 123,118
                                            # a running `vigil run` serving [web]: the readings
                                            # it reported (newest first), read back by the library
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import subprocess
import sys
import tempfile
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import py_nightscout
from check_common import Checks

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
# The fixture's secret (Tests/AppTests/Nightscout/NightscoutFixtures.swift).
SECRET = "correct horse battery"
UTC = datetime.timezone.utc


def write_documents(directory: str) -> None:
    env = dict(os.environ, VIGIL_NIGHTSCOUT_DOCUMENTS=directory)
    subprocess.run(["swift", "test", "--skip-build", "--filter", "NightscoutClientDocumentsTests"],
                   cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL)


def serve(directory: str) -> tuple[ThreadingHTTPServer, list[tuple[str, str | None]]]:
    with open(os.path.join(directory, "served.tsv")) as f:
        served = dict(line.rstrip("\n").split("\t") for line in f if line.strip())
    with open(os.path.join(directory, "api-secret.txt")) as f:
        accepted = f.read().strip()
    seen: list[tuple[str, str | None]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
            path = self.path.split("?", 1)[0]
            secret = self.headers.get("api-secret")
            seen.append((path, secret))
            if secret != accepted:
                self.answer(401, b'{"status":401,"message":"Unauthorized","description":"Invalid/Missing"}')
            elif path in served:
                with open(os.path.join(directory, served[path]), "rb") as f:
                    self.answer(200, f.read())
            else:
                self.answer(404, b'{"status":404,"message":"Not Found"}')

        def answer(self, status: int, body: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, seen


async def check_client(url: str, checks: Checks) -> None:
    api = py_nightscout.Api(url, api_secret=SECRET)

    sgvs = await api.get_sgvs()
    checks.check([s.sgv for s in sgvs] == [120, 115], "entries/sgv.json: two readings, newest first", [s.sgv for s in sgvs])
    checks.check([s.direction for s in sgvs] == ["FortyFiveDown", "Flat"], "direction words", [s.direction for s in sgvs])
    checks.check(sgvs[0].date == datetime.datetime(2026, 11, 22, 6, 5, tzinfo=UTC), "dateString parses to the reading's UTC time", sgvs[0].date)
    checks.check([s.delta for s in sgvs] == [5.4, 0], "delta (mg/dL per 5 minutes)", [s.delta for s in sgvs])
    checks.check(sgvs[0].sgv_mmol == 6.7, "the library's own mmol/L view", sgvs[0].sgv_mmol)
    checks.check(sgvs[0].device == "vigil-dexcom", "device", sgvs[0].device)

    status = await api.get_server_status()
    checks.check(status.status == "ok" and status.apiEnabled is True, "status.json: ok, API enabled", (status.status, status.apiEnabled))
    checks.check(status.name == "Vigil" and bool(status.version), "status.json: name and version", (status.name, status.version))
    thresholds = (status.settings or {}).get("thresholds", {})
    checks.check(status.settings.get("units") == "mg/dl", "settings.units", status.settings.get("units"))
    checks.check(thresholds == {"bgHigh": 250, "bgTargetTop": 180, "bgTargetBottom": 70, "bgLow": 55}, "settings.thresholds", thresholds)

    treatments = await api.get_treatments()
    checks.check([t.eventType for t in treatments] == ["BG Check", "BG Check"], "treatments.json: two BG checks", [t.eventType for t in treatments])
    checks.check([t.glucose for t in treatments] == [104, 98] and {t.glucoseType for t in treatments} == {"Finger"},
                 "fingerstick values and glucoseType", [(t.glucose, t.glucoseType) for t in treatments])
    checks.check(treatments[0].created_at == datetime.datetime(2026, 11, 22, 6, 7, tzinfo=UTC), "created_at parses", treatments[0].created_at)
    checks.check({t.units for t in treatments} == {"mg/dl"}, "units", {t.units for t in treatments})

    statuses = await api.get_devices_status()
    checks.check([(s.device, s.uploader.battery) for s in statuses] == [("vigil-meter", 55), ("vigil-dexcom", 80)],
                 "devicestatus.json: each device's uploader.battery", [(s.device, s.uploader and s.uploader.battery) for s in statuses])
    latest = await api.get_latest_devices_status()
    checks.check(sorted(latest) == ["vigil-dexcom", "vigil-meter"], "latest status per device", sorted(latest))


async def check_live(url: str, secret: str, expected: list[int], checks: Checks) -> None:
    """A running Vigil, read as a follower app would: the readings it reported (`expected`,
    newest first, from its own event log), its status, and a refusal of the wrong secret."""
    import aiohttp

    api = py_nightscout.Api(url, api_secret=secret)
    # The library sends no query (its `params` are unused): Nightscout's default count, 10.
    sgvs = await api.get_sgvs()
    checks.check([s.sgv for s in sgvs] == expected[:10], "live entries/sgv.json: the readings Vigil reported, newest first",
                 ([s.sgv for s in sgvs], expected[:10]))
    words = {"DoubleUp", "SingleUp", "FortyFiveUp", "Flat", "FortyFiveDown", "SingleDown", "DoubleDown", "NOT COMPUTABLE", "NONE"}
    checks.check(all(s.direction in words for s in sgvs), "live direction words are Nightscout's", [s.direction for s in sgvs])
    now = datetime.datetime.now(UTC)
    checks.check(all(abs((now - s.date).total_seconds()) < 3600 for s in sgvs), "live dates parse to the last hour", [s.date for s in sgvs])
    status = await api.get_server_status()
    checks.check(status.status == "ok" and status.name == "Vigil", "live status.json", (status.status, status.name))
    statuses = await api.get_devices_status()
    checks.check(all(s.uploader is None or 0 <= s.uploader.battery <= 100 for s in statuses), "live devicestatus parses",
                 [(s.device, s.uploader and s.uploader.battery) for s in statuses])
    refused = None
    try:
        await py_nightscout.Api(url, api_secret=secret + "-wrong").get_sgvs()
    except aiohttp.ClientResponseError as error:
        refused = error.status
    checks.check(refused == 401, "live: a wrong api-secret is refused with 401", refused)


def check_raw(directory: str, checks: Checks) -> None:
    """What the library does not model, read as plain JSON: the pebble and the entries' ids."""
    with open(os.path.join(directory, "pebble.json")) as f:
        pebble = json.load(f)
    bg = pebble["bgs"][0]
    checks.check(bg["sgv"] == "120" and bg["trend"] == 5 and bg["bgdelta"] == 5 and bg["battery"] == "55", "pebble: sgv string, trend, bgdelta, battery", bg)
    with open(os.path.join(directory, "entries.json")) as f:
        entries = json.load(f)
    ids = [e["_id"] for e in entries]
    checks.check(all(len(i) == 24 and all(c in "0123456789abcdef" for c in i) for i in ids) and len(set(ids)) == len(ids),
                 "entries: _id is 24 lowercase hex digits, one per entry", ids)
    checks.check(all(e["dateString"] == e["sysTime"] and e["dateString"].endswith("Z") for e in entries), "dateString = sysTime, UTC", None)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--documents", help="directory the Swift test wrote (default: run it into a temporary one)")
    parser.add_argument("--live", metavar="URL", help="a running Vigil's page address (http://127.0.0.1:8080)")
    parser.add_argument("--secret", help="with --live: the web token, Vigil's API secret")
    parser.add_argument("--expect-sgv", default="", help="with --live: the mg/dL values Vigil reported, newest first")
    args = parser.parse_args()
    checks = Checks()
    if args.live:
        expected = [int(v) for v in args.expect_sgv.split(",") if v]
        if not args.secret or not expected:
            parser.error("--live needs --secret and --expect-sgv")
        asyncio.run(check_live(args.live.rstrip("/"), args.secret, expected, checks))
        return checks.finish()
    with tempfile.TemporaryDirectory() as temporary:
        directory = args.documents or temporary
        if not args.documents:
            write_documents(directory)
        server, seen = serve(directory)
        try:
            asyncio.run(check_client(f"http://127.0.0.1:{server.server_address[1]}", checks))
        finally:
            server.shutdown()
        with open(os.path.join(directory, "api-secret.txt")) as f:
            accepted = f.read().strip()
        checks.check(bool(seen) and all(secret == accepted for _, secret in seen),
                     "the client's api-secret header is the value Vigil's API accepts", {s for _, s in seen})
        check_raw(directory, checks)
    return checks.finish()


if __name__ == "__main__":
    sys.exit(main())
