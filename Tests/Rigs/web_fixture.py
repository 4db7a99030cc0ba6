"""A stand-in for Vigil's web core, for developing and checking the page without Vigil.

It serves the page's own files, taken from the Swift sources that compile them into the binary
(`Sources/App/Website/Assets/*.swift`, each a raw multi-line string literal), and answers the routes
of docs/web.md the way the contract says: the token cookie and the sign-in flow, `/state.json`,
the `/events` stream (`event: state`, the document on one line), the alarm actions with the
same-origin rule, and the security headers with `default-src 'self'`, so a page that breaks the
Content-Security-Policy fails here too. The state is scripted by the caller
(`set_glucose`, `raise_alarm`, `add_fault`, `make_stale`, `stop`); every change is pushed to the
open streams as the core pushes its own.

Python stdlib only; it listens on 127.0.0.1, port 0 (the kernel's choice), in threads.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ASSETS = os.path.join(REPO, "Sources", "App", "Website", "Assets")

LITERAL = re.compile(r'static let (\w+): String = #"""\n(.*?)\n"""#', re.DOTALL)
SIGN_IN_ERROR_MARKER = "<!--sign-in-error-->"
WRONG_TOKEN = "That token is not right."
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


def extract_assets(directory: str = ASSETS) -> dict[str, str]:
    """Every `static let name: String` raw multi-line literal of the asset sources, by name.
    The literals close at column 0, so Swift strips no indentation and the text is as written."""
    assets: dict[str, str] = {}
    for name in sorted(os.listdir(directory)):
        if name.endswith(".swift"):
            with open(os.path.join(directory, name), encoding="utf-8") as f:
                for match in LITERAL.finditer(f.read()):
                    assets[match.group(1)] = match.group(2)
    for needed in ("documentStart", "pageRest", "signInRest", "script", "style", "icon"):
        if needed not in assets:
            raise ValueError(f"no `static let {needed}` literal in {directory}")
    # Composed as `Website.Assets.page` and `signIn(error:)` compose them.
    assets["page"] = assets["documentStart"] + "\n" + assets["pageRest"]
    return assets


def sign_in_page(assets: dict[str, str], error: str | None) -> str:
    """What `Website.Assets.signIn(error:)` makes."""
    notice = "" if error is None else f'<p id="sign-in-error" class="error" role="alert">{html.escape(error, quote=True)}</p>'
    return assets["documentStart"] + "\n" + assets["signInRest"].replace(SIGN_IN_ERROR_MARKER, notice)


def now_ms() -> int:
    return int(time.time() * 1000)


def morning(now: int) -> dict:
    """A plausible state document (docs/web.md "The page's data"): 24 h of readings every 5 min
    that dip low in the night, two fingersticks, one CGM and two other sensors."""
    readings = []
    for i in range(288, 0, -1):
        at = now - i * 300_000
        value = 140 + 60 * math.sin(i / 30.0) + 25 * math.sin(i / 7.0)
        readings.append([at, round(value)])
    readings.append([now - 120_000, 123])
    return {
        "version": "0.24.0", "now": now, "clockSet": True, "units": "mg/dL", "mgdlPerMmol": 18.0182,
        "utcOffsetMinutes": 0,
        "thresholds": {"urgentLow": 55, "low": 70, "high": 180, "urgentHigh": 250},
        "glucose": {"device": "cgm", "value": 123, "at": now - 120_000, "direction": "FortyFiveDown",
                    "ratePerMinute": -1.4, "stale": False, "staleAfterSeconds": 900},
        "readings": readings,
        "meter": [[now - 5 * 3600_000, 118], [now - 17 * 3600_000, 96]],
        "alarms": [], "snoozeAllUntil": None, "faults": [],
        "devices": [
            {"id": "cgm", "type": "dexcom-g6", "link": "connected", "lastSeen": now - 120_000, "battery": 80,
             "sensorState": "ok", "sensorAgeSeconds": 4 * 86400 + 3600, "sensorEnds": now + 6 * 86400_000 - 3600_000,
             "warmUpEnds": None},
            {"id": "hr", "type": "heart-rate", "link": "waiting", "lastSeen": now - 40_000, "battery": 87,
             "sensorState": None, "sensorAgeSeconds": None, "sensorEnds": None, "warmUpEnds": None},
        ],
        "others": [
            {"device": "hr", "kind": "heart-rate", "value": 64, "unit": "bpm", "at": now - 40_000},
            {"device": "fridge", "kind": "temperature", "value": 4.5, "unit": "\u00b0C", "at": now - 300_000},
        ],
        "history": {"open": True, "pendingRows": 0},
    }


ALARMS = {
    "low": {"title": "Low", "priority": "medium", "snoozeMinutes": 15, "canAcknowledge": True,
            "coveredBySnoozeAll": True},
    "urgent-low": {"title": "Urgent low", "priority": "high", "snoozeMinutes": 30, "canAcknowledge": True,
                   "coveredBySnoozeAll": False},
    "signal-loss:cgm": {"title": "Signal loss", "priority": "medium", "snoozeMinutes": 30,
                        "canAcknowledge": True, "coveredBySnoozeAll": False},
    "sensor-expiring:cgm": {"title": "Sensor ends soon", "priority": "low", "snoozeMinutes": 60,
                            "canAcknowledge": True, "coveredBySnoozeAll": True},
}
PRIORITY = {"high": 0, "medium": 1, "low": 2}


class QuietServer(ThreadingHTTPServer):
    """A browser that leaves mid-answer (it navigated away) is no error of the fixture's."""

    def handle_error(self, request, client_address) -> None:  # noqa: ANN001 (the stdlib's signature)
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class WebFixture:
    def __init__(self, token: str = "fixture-token-0123456789") -> None:
        self.token = token
        self.assets = extract_assets()
        self.lock = threading.Condition()
        self.state = morning(now_ms())
        self.generation = 0           # bumped on every change; streams send when it moves
        self.posts: list[tuple[str, dict[str, list[str]], str | None]] = []
        self.requests: list[tuple[str, str]] = []
        self.down = False
        self.skew_ms = 0              # the appliance's clock minus this machine's
        fixture = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 (the stdlib's name)
                fixture.handle(self, "GET")

            def do_POST(self) -> None:  # noqa: N802
                fixture.handle(self, "POST")

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    # ----- scripting the state

    def change(self, mutate) -> None:
        with self.lock:
            mutate(self.state)
            self.generation += 1
            self.lock.notify_all()

    def set_glucose(self, value: int, direction: str = "Flat", age_ms: int = 0) -> None:
        def mutate(s: dict) -> None:
            at = now_ms() - age_ms
            s["glucose"].update(value=value, direction=direction, at=at, stale=False)
            s["readings"].append([at, value])
            s["devices"][0]["lastSeen"] = at
        self.change(mutate)

    def replace(self, document: dict, skew_ms: int = 0) -> None:
        """A whole new document, on an appliance clock `skew_ms` ahead of this machine's."""
        def mutate(s: dict) -> None:
            s.clear()
            s.update(document)
        self.skew_ms = skew_ms
        self.change(mutate)

    def make_stale(self, minutes: int) -> None:
        def mutate(s: dict) -> None:
            s["glucose"].update(at=now_ms() - minutes * 60_000, stale=True)
        self.change(mutate)

    def raise_alarm(self, name: str, status: str = "sounding", device: str | None = "cgm") -> None:
        def mutate(s: dict) -> None:
            alarm = dict(ALARMS[name], name=name, status=status, device=device, raisedAt=now_ms(), snoozedUntil=None)
            s["alarms"] = [a for a in s["alarms"] if a["name"] != name] + [alarm]
            s["alarms"].sort(key=lambda a: PRIORITY.get(a["priority"], 3))
        self.change(mutate)

    def forget_alarm_quietly(self, name: str) -> None:
        """The alarm ends without a `state` event, as when it clears between two pushes."""
        with self.lock:
            self.state["alarms"] = [a for a in self.state["alarms"] if a["name"] != name]

    def add_fault(self, name: str, title: str, detail: str) -> None:
        def mutate(s: dict) -> None:
            s["faults"].append({"name": name, "title": title, "detail": detail})
        self.change(mutate)

    def clear_faults(self) -> None:
        self.change(lambda s: s.update(faults=[]))

    def document(self) -> bytes:
        with self.lock:
            if self.state.get("now") is not None:
                self.state["now"] = now_ms() + self.skew_ms
            return json.dumps(self.state, separators=(",", ":"), ensure_ascii=False).encode()

    def stop(self) -> None:
        """Stops answering: the streams end and the port is closed, as when Vigil is off."""
        with self.lock:
            self.down = True
            self.lock.notify_all()
        self.server.shutdown()
        self.server.server_close()

    # ----- answering

    def handle(self, request: BaseHTTPRequestHandler, method: str) -> None:
        url = urlsplit(request.path)
        path, query = url.path, parse_qs(url.query)
        self.requests.append((method, path))
        length = int(request.headers.get("Content-Length") or 0)
        body = request.rfile.read(length) if 0 < length <= 65536 else b""
        # Every POST, the sign-in's too, only from the page's own origin (docs/web.md "Access"):
        # a browser that sent `Origin: null` (what `Referrer-Policy: no-referrer` makes a form
        # send) is refused here as Vigil refuses it.
        if method == "POST" and request.headers.get("Origin") != self.base_url:
            return self.reply(request, 403, "application/json", '{"error":"not from this page"}')
        if method == "POST" and path == "/login":
            token = parse_qs(body.decode("utf-8", "replace")).get("token", [""])[0]
            if token != self.token:
                return self.reply(request, 401, "text/html; charset=utf-8", sign_in_page(self.assets, WRONG_TOKEN))
            return self.redirect_signed_in(request)
        if method == "GET" and path == "/" and query.get("token") == [self.token]:
            return self.redirect_signed_in(request)
        if method == "GET" and path == "/health":
            return self.reply(request, 200, "application/json", '{"status":"ok"}')
        signed_in = f"vigil_token={self.token}" in (request.headers.get("Cookie") or "").replace(" ", "").split(";")
        if not signed_in:
            if method == "GET" and path == "/":
                return self.reply(request, 200, "text/html; charset=utf-8", sign_in_page(self.assets, None))
            if method == "GET" and path in ("/app.css", "/icon.svg"):
                pass  # the sign-in page's own style and icon
            else:
                return self.reply(request, 401, "application/json", '{"error":"sign in first"}')
        if method == "GET":
            return self.get(request, path)
        form = parse_qs(body.decode("utf-8", "replace"))
        self.posts.append((path, form, request.headers.get("Content-Type")))
        return self.act(request, path, form)

    def get(self, request: BaseHTTPRequestHandler, path: str) -> None:
        files = {"/": ("page", "text/html; charset=utf-8"), "/app.js": ("script", "text/javascript; charset=utf-8"),
                 "/app.css": ("style", "text/css; charset=utf-8"), "/icon.svg": ("icon", "image/svg+xml")}
        if path in files:
            name, kind = files[path]
            return self.reply(request, 200, kind, self.assets[name])
        if path == "/state.json":
            return self.reply(request, 200, "application/json; charset=utf-8", self.document())
        if path == "/report":
            return self.reply(request, 200, "text/html; charset=utf-8",
                              "<!doctype html><title>Report</title><p>The fixture has no report.</p>")
        if path == "/events":
            return self.stream(request)
        return self.reply(request, 404, "application/json", '{"error":"no such page"}')

    def act(self, request: BaseHTTPRequestHandler, path: str, form: dict[str, list[str]]) -> None:
        if path == "/logout":
            request.send_response(303)
            request.send_header("Set-Cookie", "vigil_token=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0")
            request.send_header("Location", "/")
            request.send_header("Content-Length", "0")
            request.end_headers()
            return None
        if path == "/alarms/snooze-all":
            minutes = form.get("minutes", [""])[0]
            if not minutes.isdigit() or not 1 <= int(minutes) <= 1440:
                return self.reply(request, 400, "application/json", '{"error":"minutes must be 1 to 1440"}')
            until = now_ms() + int(minutes) * 60_000

            def snooze_all(s: dict) -> None:
                s["snoozeAllUntil"] = until
                for alarm in s["alarms"]:
                    if alarm["coveredBySnoozeAll"]:
                        alarm.update(status="snoozed", snoozedUntil=until)
            self.change(snooze_all)
            return self.reply(request, 200, "application/json; charset=utf-8", self.document())
        if path not in ("/alarms/snooze", "/alarms/acknowledge") or len(form.get("alarm", [])) != 1:
            return self.reply(request, 400, "application/json", '{"error":"malformed form"}')
        name = form["alarm"][0]
        with self.lock:
            alarm = next((a for a in self.state["alarms"] if a["name"] == name), None)
        if alarm is None:
            return self.reply(request, 404, "application/json", '{"error":"no such alarm is active"}')
        minutes = alarm["snoozeMinutes"] if path == "/alarms/snooze" else 60
        self.change(lambda s: alarm.update(status="snoozed", snoozedUntil=now_ms() + minutes * 60_000))
        return self.reply(request, 200, "application/json; charset=utf-8", self.document())

    def redirect_signed_in(self, request: BaseHTTPRequestHandler) -> None:
        request.send_response(303)
        request.send_header("Set-Cookie", f"vigil_token={self.token}; HttpOnly; SameSite=Strict; Path=/; Max-Age=31536000")
        request.send_header("Location", "/")
        request.send_header("Content-Length", "0")
        self.security_headers(request)
        request.end_headers()

    def security_headers(self, request: BaseHTTPRequestHandler) -> None:
        for name, value in (("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"),
                            ("Referrer-Policy", "same-origin"), ("X-Frame-Options", "DENY"),
                            ("Content-Security-Policy", CSP)):
            request.send_header(name, value)

    def reply(self, request: BaseHTTPRequestHandler, status: int, kind: str, body: str | bytes) -> None:
        data = body.encode() if isinstance(body, str) else body
        request.send_response(status)
        request.send_header("Content-Type", kind)
        request.send_header("Content-Length", str(len(data)))
        self.security_headers(request)
        request.end_headers()
        request.wfile.write(data)

    def stream(self, request: BaseHTTPRequestHandler) -> None:
        request.send_response(200)
        request.send_header("Content-Type", "text/event-stream")
        self.security_headers(request)
        request.end_headers()
        sent = -1
        try:
            request.wfile.write(b"retry: 5000\n\n")
            while True:
                with self.lock:
                    self.lock.wait_for(lambda: self.down or self.generation != sent, timeout=15)
                    if self.down:
                        return
                    changed = self.generation != sent
                    sent = self.generation
                if changed:
                    request.wfile.write(b"event: state\ndata: " + self.document() + b"\n\n")
                else:
                    request.wfile.write(b": still here\n\n")
                request.wfile.flush()
        except OSError:
            return  # the browser went away


if __name__ == "__main__":
    fixture = WebFixture()
    print(f"{fixture.base_url}/?token={fixture.token}", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        fixture.stop()
