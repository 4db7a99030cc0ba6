"""Dexcom Share and Abbott's LibreLinkUp, the services a follower reads, on one loopback port
over TLS with the test CA (`https_rig.py`, `test_ca.py`). One certificate names every host
below; the service is chosen by the `Host` header (which must agree with TLS's server name),
so a client given `--connect-to share2.dexcom.com:443:127.0.0.1:PORT` (and the same for the
LibreView hosts) reaches this process while believing it talks to the real names. Written from
the published behaviour of the open-source clients (pydexcom, share2nightscout-bridge, xDrip,
Loop's ShareClient; nightscout-librelink-up, libre-link-up-api-client, pylibrelinkup); facts
only, see docs/network-test-servers.md.

    PY=$(scripts/bumble-env.sh | tail -n1)
    $PY Tests/Rigs/follow_server.py --port 0 [--dexcom-user U --dexcom-password P]
        [--libre-email E --libre-password P --libre-region eu --libre-patient "Emma Example"]

Dexcom Share (hosts share2.dexcom.com, shareous1.dexcom.com, share.dexcom.jp), POST under
`/ShareWebServices/Services/`: `General/AuthenticatePublisherAccount` ({accountName, password,
applicationId} -> the account id, a JSON string), `General/LoginPublisherAccountById`
({accountId, password, applicationId} -> a session id), `General/LoginPublisherAccountByName`
(the older one-step login), `Publisher/ReadPublisherLatestGlucoseValues?sessionId=&minutes=
&maxCount=` (newest first: `{"WT":"Date(ms)","ST":"Date(ms)","DT":"Date(ms+0000)","Value":mg/dL,
"Trend":"Flat"}`). Errors are HTTP 500 with `{"Code":...,"Message":...,"SubCode":...,
"TypeName":"FaultException"}`: `AccountPasswordInvalid`, `SessionIdNotFound`,
`SessionNotValid`, `InvalidArgument`.

LibreLinkUp (hosts api.libreview.io and api-<region>.libreview.io): `POST /llu/auth/login`
({email, password}; on a host other than the account's region: `{"status":0,"data":
{"redirect":true,"region":R}}`; a wrong password: `{"status":2,"error":{"message":
"notAuthenticated"}}`), `GET /llu/connections`, `GET /llu/connections/<patientId>/graph`
(`Authorization: Bearer <token>` from the login, valid on the host that issued it, and
`Account-Id: <SHA-256 hex of the user id>`). Every request needs the `product` and `version`
headers (missing: 400 `{"message":"RequiredHeaderMissing"}`; a version under
`--libre-min-version`: 403). A bad or expired token: 401 `{"message":"invalid or expired jwt"}`.
`FactoryTimestamp` is UTC, `Timestamp` the phone's local time (`--libre-utc-offset-minutes`),
both `M/D/YYYY h:mm:ss AM`.

Readings (both services serve the same list unless told otherwise) are set with
`{"readings":[{"mgdl":N,"ageSeconds":S,"trend":"Flat"},...],"service":"dexcom"|"libre"|"both"}`
(dated S seconds before the command arrived) or at start with `--glucose-mgdl N --count K`
(K readings 5 minutes apart, the newest `--newest-age-seconds` old). `{"expire-sessions":true}`
makes every Share session and LibreLinkUp token unknown, as when the service drops them.
Every answered request is printed as `{"event":"response",...}`; each login as
`{"login":"dexcom"|"libre",...,"result":...}`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import secrets
import sys
import threading
import time
import uuid

from https_rig import HttpsRig, Request, Response, common_arguments, now_ms

DEXCOM_HOSTS = ("share2.dexcom.com", "shareous1.dexcom.com", "share.dexcom.jp")
LIBRE_REGIONS = ("us", "eu", "eu2", "de", "fr", "jp", "ap", "au", "ae", "ca", "la", "ru")
LIBRE_GLOBAL = "api.libreview.io"
DEXCOM_PREFIX = "/ShareWebServices/Services/"
# Dexcom's trend names (pydexcom's DEXCOM_TREND_DIRECTIONS) and LibreLinkUp's TrendArrow
# numbers (1 falling fast .. 5 rising fast), from the same Nightscout direction names.
LIBRE_ARROWS = {"SingleDown": 1, "DoubleDown": 1, "FortyFiveDown": 2, "Flat": 3, "FortyFiveUp": 4,
                "SingleUp": 5, "DoubleUp": 5, "NotComputable": 0, "None": 0}
DEFAULT_SESSION = "00000000-0000-0000-0000-000000000000"


def dexcom_error(code: str, message: str) -> Response:
    sub = (f'<OnlineException DateThrown="{time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime())}Z" '
           f'ErrorCode="{code}" Message="{message}" />')
    return Response.json(500, {"Code": code, "Message": message, "SubCode": sub, "TypeName": "FaultException"})


def libre_time(ms: int, offset_minutes: int = 0) -> str:
    """LibreLinkUp's `M/D/YYYY h:mm:ss AM` (no leading zeros on month, day and hour)."""
    t = time.gmtime(ms // 1000 + offset_minutes * 60)
    hour = t.tm_hour % 12 or 12
    return f"{t.tm_mon}/{t.tm_mday}/{t.tm_year} {hour}:{t.tm_min:02d}:{t.tm_sec:02d} {'AM' if t.tm_hour < 12 else 'PM'}"


def version_tuple(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3]) or (0,)


class FollowServices:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.lock = threading.Lock()
        self.account_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"dexcom:{args.dexcom_user}"))
        self.sessions: set[str] = set()
        self.user_id = str(uuid.uuid5(uuid.NAMESPACE_URL, f"libre:{args.libre_email}"))
        self.tokens: dict[str, tuple[str, int]] = {}  # token -> (issuing host, expiry s)
        # The extra connections come first, so a client that takes the first one when told a
        # name is caught.
        self.patients = []
        for name, readings in [*((extra, "extra") for extra in args.libre_extra_patient), (args.libre_patient, "main")]:
            first, _, last = name.partition(" ")
            self.patients.append({"patientId": str(uuid.uuid5(uuid.NAMESPACE_URL, f"patient:{name}")),
                                  "firstName": first, "lastName": last, "readings": readings})
        now = now_ms()
        start = [{"mgdl": args.glucose_mgdl, "ms": now - (args.newest_age_seconds + 300 * i) * 1000, "trend": "Flat"}
                 for i in range(args.count)] if args.glucose_mgdl else []
        self.readings = {"dexcom": list(start), "libre": list(start),
                         "extra": [{"mgdl": 180, "ms": now - 300_000 * i, "trend": "Flat"} for i in range(3)]}
        self.rig: HttpsRig | None = None

    # --- dispatch ----------------------------------------------------------------------------

    def handle(self, request: Request) -> Response:
        host = request.host
        if host in DEXCOM_HOSTS:
            return self.dexcom(request)
        if host == LIBRE_GLOBAL or re.fullmatch(r"api-[a-z0-9]+\.libreview\.io", host):
            return self.libre(request)
        return Response.text(404, f"no service for host {host!r}")

    def log_login(self, service: str, request: Request, result: str, **fields: object) -> None:
        assert self.rig is not None
        self.rig.out.emit(login=service, host=request.host, result=result, **fields)

    # --- Dexcom Share ------------------------------------------------------------------------

    def dexcom(self, request: Request) -> Response:
        if not request.path.startswith(DEXCOM_PREFIX):
            return Response.text(404, "Not Found")
        if request.method != "POST":
            return Response.text(405, "Method Not Allowed")
        endpoint = request.path[len(DEXCOM_PREFIX):]
        try:
            body = request.json() if request.body.strip() else {}
        except ValueError:
            return dexcom_error("InvalidArgument", "Request body is not valid JSON")
        if not isinstance(body, dict):
            body = {}
        if endpoint in ("General/AuthenticatePublisherAccount", "General/LoginPublisherAccountByName"):
            name, password = body.get("accountName"), body.get("password")
            if not body.get("applicationId"):
                return dexcom_error("InvalidArgument", "Application ID null or empty")
            if not name:
                return dexcom_error("InvalidArgument", "Username null or empty")
            if not password:
                return dexcom_error("InvalidArgument", "Password null or empty")
            if name != self.args.dexcom_user or password != self.args.dexcom_password:
                self.log_login("dexcom", request, "AccountPasswordInvalid", endpoint=endpoint)
                return dexcom_error("AccountPasswordInvalid", "Publisher account password failed")
            if endpoint.endswith("AuthenticatePublisherAccount"):
                self.log_login("dexcom", request, "account-id", endpoint=endpoint)
                return Response.json(200, self.account_id)
            return self.new_session(request, endpoint)
        if endpoint == "General/LoginPublisherAccountById":
            if not body.get("applicationId"):
                return dexcom_error("InvalidArgument", "Application ID null or empty")
            if body.get("accountId") != self.account_id or body.get("password") != self.args.dexcom_password:
                self.log_login("dexcom", request, "AccountPasswordInvalid", endpoint=endpoint)
                return dexcom_error("AccountPasswordInvalid", "Publisher account password failed")
            return self.new_session(request, endpoint)
        if endpoint == "Publisher/ReadPublisherLatestGlucoseValues":
            session = request.first("sessionId") or body.get("sessionId")
            minutes = request.first("minutes") or body.get("minutes")
            count = request.first("maxCount") or body.get("maxCount")
            if not session or session == DEFAULT_SESSION:
                return dexcom_error("SessionNotValid", "Session ID is not valid")
            with self.lock:
                known = session in self.sessions
            if not known:
                return dexcom_error("SessionIdNotFound", f"Failed to find session object. [SessionId = {session}]")
            try:
                minutes_value, count_value = int(minutes), int(count)
            except (TypeError, ValueError):
                return dexcom_error("InvalidArgument", "minutes and maxCount are required")
            if not 1 <= minutes_value <= 1440 or not 1 <= count_value <= 288:
                return dexcom_error("InvalidArgument", "Minutes must be between 1 and 1440, max count between 1 and 288")
            since = now_ms() - minutes_value * 60_000
            with self.lock:
                readings = sorted((r for r in self.readings["dexcom"] if r["ms"] >= since),
                                  key=lambda r: r["ms"], reverse=True)[:count_value]
            return Response.json(200, [{"WT": f"Date({r['ms']})", "ST": f"Date({r['ms']})",
                                        "DT": f"Date({r['ms']}+0000)", "Value": r["mgdl"], "Trend": r["trend"]}
                                       for r in readings])
        return Response.text(404, "Not Found")

    def new_session(self, request: Request, endpoint: str) -> Response:
        session = str(uuid.uuid4())
        with self.lock:
            self.sessions.add(session)
        self.log_login("dexcom", request, "session", endpoint=endpoint)
        return Response.json(200, session)

    # --- LibreLinkUp -------------------------------------------------------------------------

    def libre(self, request: Request) -> Response:
        product, version = request.headers.get("product"), request.headers.get("version")
        if not product or not version:
            return Response.json(400, {"message": "RequiredHeaderMissing"})
        if version_tuple(version) < version_tuple(self.args.libre_min_version):
            return Response.text(403, "Forbidden")
        if request.path == "/llu/auth/login" and request.method == "POST":
            return self.libre_login(request)
        token_host = self.libre_token(request)
        if isinstance(token_host, Response):
            return token_host
        account = request.headers.get("account-id")
        if not account:
            return Response.json(400, {"message": "RequiredHeaderMissing"})
        if account != hashlib.sha256(self.user_id.encode()).hexdigest():
            return Response.json(401, {"message": "invalid or expired jwt"})
        ticket = self.ticket(token_host)
        if request.path == "/llu/connections" and request.method == "GET":
            return Response.json(200, {"status": 0, "data": [self.connection(p) for p in self.patients],
                                       "ticket": ticket})
        match = re.fullmatch(r"/llu/connections/([0-9a-f-]+)/graph", request.path)
        if match and request.method == "GET":
            patient = next((p for p in self.patients if p["patientId"] == match.group(1)), None)
            if patient is None:
                return Response.json(404, {"message": "NotFound"})
            readings = self.patient_readings(patient)
            history = readings[1:][::-1]  # oldest first, the newest is glucoseMeasurement
            return Response.json(200, {"status": 0, "data": {
                "connection": self.connection(patient),
                "activeSensors": [{"sensor": {"deviceId": "", "sn": "0M0000TEST", "a": int(time.time()) - 86_400,
                                              "w": 60, "pt": 4, "s": False, "lj": False}}],
                "graphData": [self.measurement(r, with_arrow=False) for r in history]}, "ticket": ticket})
        return Response.text(404, "Not Found")

    def libre_login(self, request: Request) -> Response:
        try:
            body = request.json()
        except ValueError:
            return Response.json(400, {"status": 400, "error": {"message": "BadRequest"}})
        if not isinstance(body, dict) or body.get("email") != self.args.libre_email \
                or body.get("password") != self.args.libre_password:
            self.log_login("libre", request, "notAuthenticated")
            return Response.json(200, {"status": 2, "error": {"message": "notAuthenticated"}})
        home = f"api-{self.args.libre_region}.libreview.io"
        if request.host != home:
            self.log_login("libre", request, "redirect", region=self.args.libre_region)
            return Response.json(200, {"status": 0, "data": {"redirect": True, "region": self.args.libre_region}})
        token = "eyJ" + secrets.token_urlsafe(48)
        expires = int(time.time()) + 15_552_000
        with self.lock:
            self.tokens[token] = (request.host, expires)
        self.log_login("libre", request, "token")
        first, _, last = self.args.libre_patient.partition(" ")
        return Response.json(200, {"status": 0, "data": {
            "user": {"id": self.user_id, "firstName": "Follower", "lastName": "Test", "email": self.args.libre_email,
                     "country": self.args.libre_region.upper()[:2], "uiLanguage": "en-GB", "accountType": "pat"},
            "messages": {"unread": 0}, "notifications": {"unresolved": 0},
            "authTicket": {"token": token, "expires": expires, "duration": 15_552_000_000},
            "invitations": None, "trustedDeviceToken": ""}})

    def libre_token(self, request: Request) -> str | Response:
        parts = request.headers.get("authorization", "").split(" ")
        with self.lock:
            entry = self.tokens.get(parts[1]) if len(parts) == 2 and parts[0] == "Bearer" else None
        if entry is None or entry[0] != request.host or entry[1] < time.time():
            return Response.json(401, {"message": "invalid or expired jwt"})
        return entry[0]

    def ticket(self, host: str) -> dict:
        token = "eyJ" + secrets.token_urlsafe(48)
        expires = int(time.time()) + 15_552_000
        with self.lock:
            self.tokens[token] = (host, expires)
        return {"token": token, "expires": expires, "duration": 15_552_000_000}

    def patient_readings(self, patient: dict) -> list[dict]:
        with self.lock:
            source = self.readings["libre" if patient["readings"] == "main" else "extra"]
            return sorted(source, key=lambda r: r["ms"], reverse=True)

    def measurement(self, reading: dict, with_arrow: bool = True) -> dict:
        mgdl = reading["mgdl"]
        item = {"FactoryTimestamp": libre_time(reading["ms"]),
                "Timestamp": libre_time(reading["ms"], self.args.libre_utc_offset_minutes),
                "type": 1 if with_arrow else 0, "ValueInMgPerDl": mgdl,
                "MeasurementColor": 1 if 70 <= mgdl <= 180 else (3 if mgdl < 70 else 2),
                "GlucoseUnits": 1, "Value": mgdl, "isHigh": mgdl > 400, "isLow": mgdl < 40}
        if with_arrow:
            item["TrendArrow"] = LIBRE_ARROWS.get(reading["trend"], 0)
            item["TrendMessage"] = None
        return item

    def connection(self, patient: dict) -> dict:
        readings = self.patient_readings(patient)
        newest = self.measurement(readings[0]) if readings else None
        return {"id": str(uuid.uuid5(uuid.NAMESPACE_URL, "connection:" + patient["patientId"])),
                "patientId": patient["patientId"], "country": "DE", "status": 2,
                "firstName": patient["firstName"], "lastName": patient["lastName"],
                "targetLow": 70, "targetHigh": 180, "uom": 1,
                "sensor": {"deviceId": "", "sn": "0M0000TEST", "a": int(time.time()) - 86_400, "w": 60, "pt": 4,
                           "s": False, "lj": False},
                "glucoseMeasurement": newest, "glucoseItem": newest, "glucoseAlarm": None,
                "patientDevice": {"did": str(uuid.uuid5(uuid.NAMESPACE_URL, "device")), "dtid": 40068,
                                  "v": "3.4.1", "ll": 60, "hl": 240, "alarms": False, "fixedLowThreshold": 60},
                "created": int(time.time()) - 86_400 * 30}

    # --- control -----------------------------------------------------------------------------

    def control(self, command: dict) -> dict | None:
        if "readings" in command:
            now = now_ms()
            readings = [{"mgdl": int(r["mgdl"]), "ms": now - int(float(r.get("ageSeconds", 0)) * 1000),
                         "trend": r.get("trend", "Flat")} for r in command["readings"]]
            service = command.get("service", "both")
            with self.lock:
                for name in (("dexcom", "libre") if service == "both" else (service,)):
                    if name not in self.readings:
                        raise ValueError(f"unknown service {name!r}")
                    self.readings[name] = list(readings)
            return {"readings": [{"mgdl": r["mgdl"], "date": r["ms"], "trend": r["trend"]} for r in readings]}
        if command.get("expire-sessions"):
            with self.lock:
                self.sessions.clear()
                self.tokens.clear()
            return {"expired": True}
        return None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common_arguments(parser)
    parser.add_argument("--dexcom-user", default="vigil-follower")
    parser.add_argument("--dexcom-password", default="share-password-1")
    parser.add_argument("--libre-email", default="follower@example.com")
    parser.add_argument("--libre-password", default="libre-password-1")
    parser.add_argument("--libre-region", default="eu", choices=LIBRE_REGIONS, help="the account's region")
    parser.add_argument("--libre-patient", default="Emma Example", help="the followed patient's first and last name")
    parser.add_argument("--libre-extra-patient", action="append", default=[],
                        help="another connection, listed before the followed one (flat 180 mg/dL)")
    parser.add_argument("--libre-min-version", default="4.12.0", help="the lowest `version` header accepted")
    parser.add_argument("--libre-utc-offset-minutes", type=int, default=60, help="the phone's time zone for `Timestamp`")
    parser.add_argument("--glucose-mgdl", type=int, default=0, help="serve a flat line of this value from the start")
    parser.add_argument("--count", type=int, default=6)
    parser.add_argument("--newest-age-seconds", type=int, default=60)
    args = parser.parse_args()
    services = FollowServices(args)
    names = [*DEXCOM_HOSTS, LIBRE_GLOBAL, *(f"api-{region}.libreview.io" for region in LIBRE_REGIONS)]
    rig = HttpsRig("follow", args, names, services.handle, services.control,
                   {"dexcom": {"user": args.dexcom_user, "accountId": services.account_id},
                    "libre": {"email": args.libre_email, "region": args.libre_region, "userId": services.user_id,
                              "patients": [{k: p[k] for k in ("patientId", "firstName", "lastName")}
                                           for p in services.patients]}})
    services.rig = rig
    return rig.run()


if __name__ == "__main__":
    sys.exit(main())
