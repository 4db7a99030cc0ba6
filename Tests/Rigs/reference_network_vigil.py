#!/usr/bin/env python3
"""A reference implementation of `vigil run`'s *network* contract, to test the tests.

NightscoutUploadInteropTests and FollowerInteropTests were written against docs/network.md
before the real uploader and followers existed. Running them against this script
(`VIGIL_BINARY=$PWD/Tests/Rigs/reference-network-vigil swift test --skip-build --filter
'NightscoutUploadInteropTests|FollowerInteropTests'`) proves that an implementation keeping the
contract passes them, so a red test there means Vigil, not the test. It is NOT part of the
product: it does not speak Bluetooth (a `dexcom` device's readings are made up here, one per
`reading-interval`, in place of the transmitter's), its alarms are only urgent low and signal
loss, and its timing is a thread's, not the core's.

What it keeps: `--connect-to HOST:PORT:ADDRESS:PORT` (TLS name and Host stay HOST), `[network]
ca-file` with verification on, a durable upload queue in the state directory (a reading
leaves it only when the server answered 2xx), oldest first, retried with back-off; `nightscout`,
`dexcom-share` and `librelinkup` followers reporting readings at their own times; `--events-json`
`reading` and `alarm` events; no secret in any output.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import http.client
import json
import os
import re
import signal
import socket
import ssl
import sys
import threading
import time
import tomllib
import urllib.parse

STOP = threading.Event()
OUT = threading.Lock()


def emit(**fields: object) -> None:
    with OUT:
        sys.stdout.write(json.dumps(fields) + "\n")
        sys.stdout.flush()


def log(text: str) -> None:
    with OUT:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()


def iso(ms: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"


class Network:
    def __init__(self, ca_file: str | None, connect_to: list[str]) -> None:
        self.context = ssl.create_default_context(cafile=ca_file or None)
        self.routes: dict[tuple[str, int], tuple[str, int]] = {}
        for spec in connect_to:
            host, port, address, to_port = spec.rsplit(":", 3)
            self.routes[(host, int(port))] = (address, int(to_port))

    def request(self, method: str, url: str, body: object | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        parts = urllib.parse.urlsplit(url)
        host, port = parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80)
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        address = self.routes.get((host, port), (host, port))
        raw = socket.create_connection(address, timeout=10)
        try:
            connection = self.context.wrap_socket(raw, server_hostname=host) if parts.scheme == "https" else raw
            data = b"" if body is None else json.dumps(body).encode()
            head = [f"{method} {target} HTTP/1.1", f"Host: {host}" + (f":{port}" if port != 443 else ""),
                    "Connection: close", "User-Agent: Vigil/reference", "Accept: application/json",
                    f"Content-Length: {len(data)}"]
            if body is not None:
                head.append("Content-Type: application/json")
            head += [f"{k}: {v}" for k, v in (headers or {}).items()]
            connection.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + data)
            connection.settimeout(30)
            response = http.client.HTTPResponse(connection)
            response.begin()
            return response.status, response.read()
        finally:
            raw.close()


class Alarms:
    def __init__(self, config: dict) -> None:
        alarms = config.get("alarms", {})
        self.urgent_low = alarms.get("urgent-low", 55)
        self.signal_loss = alarms.get("signal-loss-minutes", 20) * 60
        self.lock = threading.Lock()
        self.newest: dict[str, float] = {}
        self.raised: set[str] = set()
        self.changed = threading.Event()

    def raise_once(self, name: str) -> None:
        with self.lock:
            if name in self.raised:
                return
            self.raised.add(name)
        emit(event="alarm", alarm=name, change="raised", priority="urgent", time=iso(int(time.time() * 1000)))

    def reading(self, device: str, mgdl: float, ms: int) -> None:
        emit(event="reading", device=device, kind="glucose", mgdl=float(mgdl), time=iso(ms))
        with self.lock:
            newer = ms / 1000 > self.newest.get(device, 0)
            if newer:
                self.newest[device] = ms / 1000
        if newer and mgdl < self.urgent_low and time.time() - ms / 1000 < self.signal_loss:
            self.raise_once("urgent-low")
        self.changed.set()

    def watch(self) -> None:
        """Signal loss by each device's newest reading's own time."""
        while not STOP.is_set():
            with self.lock:
                due = {d: t + self.signal_loss for d, t in self.newest.items() if f"signal-loss:{d}" not in self.raised}
            now = time.time()
            for device, when in due.items():
                if now >= when:
                    self.raise_once(f"signal-loss:{device}")
            wait = min([when - now for when in due.values() if when > now] + [1.0])
            self.changed.wait(max(wait, 0.01))
            self.changed.clear()


class Uploader:
    """The durable queue: `queue.jsonl` holds every entry, `acknowledged` how many the server took."""

    def __init__(self, section: dict, network: Network, state: str) -> None:
        self.url = section["url"].rstrip("/")
        self.headers = {"api-secret": hashlib.sha1(section["api-secret"].encode()).hexdigest()} if "api-secret" in section else {}
        self.query = f"?token={section['token']}" if "token" in section else ""
        self.network = network
        self.queue_path = os.path.join(state, "queue.jsonl")
        self.acknowledged_path = os.path.join(state, "acknowledged")
        self.lock = threading.Lock()
        self.wake = threading.Event()

    def add(self, entry: dict) -> None:
        with self.lock, open(self.queue_path, "a") as f:
            f.write(json.dumps(entry) + "\n")
            f.flush()
            os.fsync(f.fileno())
        self.wake.set()

    def pending(self) -> tuple[int, list[dict]]:
        with self.lock:
            entries = [json.loads(line) for line in open(self.queue_path)] if os.path.exists(self.queue_path) else []
            done = int(open(self.acknowledged_path).read() or 0) if os.path.exists(self.acknowledged_path) else 0
        return done, entries[done:done + 20]

    def run(self) -> None:
        backoff = 1.0
        while not STOP.is_set():
            done, batch = self.pending()
            if not batch:
                self.wake.wait(1)
                self.wake.clear()
                continue
            try:
                status, _ = self.network.request("POST", f"{self.url}/api/v1/entries{self.query}", batch, self.headers)
                if 200 <= status < 300:
                    with self.lock, open(self.acknowledged_path, "w") as f:
                        f.write(str(done + len(batch)))
                    backoff = 1.0
                    continue
                log(f"upload: the server answered {status}")
            except (OSError, http.client.HTTPException) as error:
                log(f"upload failed: {type(error).__name__}")
            STOP.wait(backoff)
            backoff = min(backoff * 2, 8)


def made_up_readings(device: dict, alarms: Alarms, uploader: Uploader | None) -> None:
    interval = float(re.sub(r"[^0-9.]", "", str(device.get("reading-interval", "5s"))) or 5)
    label = device.get("label") or device["type"]
    index = 0
    while not STOP.wait(interval if index else 0.5):
        ms = int(time.time() * 1000)
        mgdl = 100 + index % 20
        index += 1
        if uploader:
            uploader.add({"type": "sgv", "sgv": mgdl, "date": ms, "dateString": iso(ms), "direction": "Flat",
                          "device": "vigil-reference"})
        alarms.reading(label, mgdl, ms)


def follow(device: dict, network: Network, alarms: Alarms) -> None:
    label = device.get("label") or device["type"]
    seen: set[int] = set()
    session: dict = {}
    while not STOP.is_set():
        try:
            readings = {"nightscout": nightscout_readings, "dexcom-share": share_readings,
                        "librelinkup": libre_readings}[device["type"]](device, network, session)
            for ms, mgdl in sorted(readings):
                if ms not in seen:
                    seen.add(ms)
                    alarms.reading(label, mgdl, ms)
        except (OSError, http.client.HTTPException, ValueError, KeyError) as error:
            session.clear()
            log(f"{label}: {type(error).__name__}")
        STOP.wait(5)


def nightscout_readings(device: dict, network: Network, _session: dict) -> list[tuple[int, float]]:
    query = f"&token={device['token']}" if "token" in device else ""
    headers = {"api-secret": hashlib.sha1(device["api-secret"].encode()).hexdigest()} if "api-secret" in device else {}
    status, body = network.request("GET", f"{device['url'].rstrip('/')}/api/v1/entries.json?count=10{query}", None, headers)
    if status != 200:
        raise ValueError(f"status {status}")
    return [(int(e["date"]), float(e["sgv"])) for e in json.loads(body) if e.get("type") == "sgv"]


def share_readings(device: dict, network: Network, session: dict) -> list[tuple[int, float]]:
    base = {"us": "https://share2.dexcom.com", "outside-us": "https://shareous1.dexcom.com",
            "japan": "https://share.dexcom.jp"}.get(device.get("server", "us"), device.get("server"))
    services = f"{base}/ShareWebServices/Services"
    app = "d89443d2-327c-4a6f-89e5-496bbb0317db"
    if "id" not in session:
        _, account = network.request("POST", f"{services}/General/AuthenticatePublisherAccount",
                                     {"accountName": device["username"], "password": device["password"], "applicationId": app})
        _, sid = network.request("POST", f"{services}/General/LoginPublisherAccountById",
                                 {"accountId": json.loads(account), "password": device["password"], "applicationId": app})
        session["id"] = json.loads(sid)
    status, body = network.request(
        "POST", f"{services}/Publisher/ReadPublisherLatestGlucoseValues?sessionId={session['id']}&minutes=1440&maxCount=288", {})
    if status != 200:
        raise ValueError(f"status {status}")
    return [(int(re.search(r"\d+", v["WT"]).group()), float(v["Value"])) for v in json.loads(body)]


def libre_readings(device: dict, network: Network, session: dict) -> list[tuple[int, float]]:
    headers = {"product": "llu.android", "version": "4.16.0"}
    if "token" not in session:
        base = session.get("base", device.get("server", "https://api.libreview.io"))
        _, body = network.request("POST", f"{base}/llu/auth/login", {"email": device["email"], "password": device["password"]}, headers)
        answer = json.loads(body)
        if answer.get("data", {}).get("redirect"):
            base = f"https://api-{answer['data']['region']}.libreview.io"
            _, body = network.request("POST", f"{base}/llu/auth/login", {"email": device["email"], "password": device["password"]}, headers)
            answer = json.loads(body)
        session.update(base=base, token=answer["data"]["authTicket"]["token"],
                       account=hashlib.sha256(answer["data"]["user"]["id"].encode()).hexdigest())
    authorized = {**headers, "Authorization": f"Bearer {session['token']}", "Account-Id": session["account"]}
    _, body = network.request("GET", f"{session['base']}/llu/connections", None, authorized)
    people = json.loads(body)["data"]
    wanted = device.get("patient", "")
    person = next((p for p in people if not wanted or f"{p['firstName']} {p['lastName']}" == wanted), None)
    if person is None:
        raise ValueError("no such patient")
    _, body = network.request("GET", f"{session['base']}/llu/connections/{person['patientId']}/graph", None, authorized)
    data = json.loads(body)["data"]
    items = data["graphData"] + [data["connection"]["glucoseMeasurement"]]

    def utc_ms(text: str) -> int:
        parsed = datetime.datetime.strptime(text, "%m/%d/%Y %I:%M:%S %p").replace(tzinfo=datetime.timezone.utc)
        return int(parsed.timestamp() * 1000)
    return [(utc_ms(i["FactoryTimestamp"]), float(i["ValueInMgPerDl"])) for i in items if i]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("command", choices=["run"])
    parser.add_argument("--hci")
    parser.add_argument("--config", required=True)
    parser.add_argument("--state-dir", required=True)
    parser.add_argument("--events-json", action="store_true")
    parser.add_argument("--log-level")
    parser.add_argument("--seconds", type=float, default=0)
    parser.add_argument("--connect-to", action="append", default=[])
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: STOP.set())
    with open(args.config, "rb") as f:
        config = tomllib.load(f)
    os.makedirs(args.state_dir, exist_ok=True)
    network = Network(config.get("network", {}).get("ca-file"), args.connect_to)
    alarms = Alarms(config)
    uploader = Uploader(config["nightscout"], network, args.state_dir) if "nightscout" in config else None
    threads = [threading.Thread(target=alarms.watch, daemon=True)]
    if uploader:
        threads.append(threading.Thread(target=uploader.run, daemon=True))
    for device in config.get("device", []):
        if device["type"] == "dexcom":
            threads.append(threading.Thread(target=made_up_readings, args=(device, alarms, uploader), daemon=True))
        elif device["type"] in ("nightscout", "dexcom-share", "librelinkup"):
            threads.append(threading.Thread(target=follow, args=(device, network, alarms), daemon=True))
    for thread in threads:
        thread.start()
    STOP.wait(args.seconds or None)
    STOP.set()
    return 0


if __name__ == "__main__":
    sys.exit(main())
