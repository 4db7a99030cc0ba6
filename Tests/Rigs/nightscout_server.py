"""A Nightscout site's API v1, on loopback over TLS with the test CA (`https_rig.py`,
`test_ca.py`): what Vigil uploads to and follows. Written from Nightscout's published API and
the behaviour of its server (cgm-remote-monitor's lib/server and lib/authorization); facts
only, see docs/network-test-servers.md.

    PY=$(scripts/bumble-env.sh | tail -n1)
    $PY Tests/Rigs/nightscout_server.py --port 0 --api-secret 'a secret of 12+' \
        [--token vigil=admin] [--default-roles denied] [--record uploads.jsonl] [--plain]

Served: `GET|POST /api/v1/entries[.json]`, `GET /api/v1/entries/<type>[.json]` (sgv, mbg, cal),
`GET|POST /api/v1/treatments[.json]`, `GET|POST /api/v1/devicestatus[.json]`,
`GET /api/v1/status.json`, `GET /api/v1/verifyauth`, `GET /api/v2/authorization/request/<token>`.

Authentication as Nightscout's: the `api-secret` header (or `?secret=`) equal to the SHA-1 hex
of API_SECRET is the admin; an access token (`?token=`, made from `--token NAME=ROLE,...` and
printed in the rig line) or the JWT `/api/v2/authorization/request/<token>` issues
(`Authorization: Bearer`) gives its roles' permissions; anyone gets the default roles'.
Refused: 401 `{"status":401,"message":"Unauthorized","description":"Invalid/Missing"}` (a JWT
that does not verify: the text `Unauthorized - Invalid/Missing`).

De-duplication as Nightscout's: an entry replaces the fields of the stored entry with the same
`sysTime` (its `dateString`, else `date`, in UTC) and `type`, keeping its `_id`; a treatment
replaces the one with the same `identifier`, else `created_at` and `eventType`; a device
status is always added.

Every document a POST stored is printed (and appended to `--record`) as
`{"accepted":COLLECTION,"seq":N,"request":R,"duplicate":BOOL,"document":{...}}`: `seq` counts
accepted documents in arrival order, `request` the accepted POSTs. Commands (stdin or the
control port, see https_rig.py) besides the faults: `{"serve":[documents],"collection":
"entries"}` stores documents without recording them as uploads (`"ageSeconds": S` on an entry
dates it S seconds before now), `{"clear":true}` empties every collection, `{"dump":
COLLECTION}` answers with its documents.
"""

from __future__ import annotations

import argparse
import base64
import datetime
import hashlib
import hmac
import json
import re
import sys
import threading
import time

from https_rig import HttpsRig, Request, Response, common_arguments, iso, now_ms

# Nightscout's default roles (lib/authorization/storage.js), as permission patterns.
ROLES = {
    "admin": ["*"],
    "denied": [],
    "status-only": ["api:status:read"],
    "readable": ["*:*:read"],
    "careportal": ["api:treatments:create"],
    "devicestatus-upload": ["api:devicestatus:create"],
}
FOUR_DAYS_MS = 4 * 86_400_000  # the window a query without a date gets (lib/server/query.js)
NUMERIC_FIELDS = {"entries": {"date", "sgv", "filtered", "unfiltered", "rssi", "noise", "mbg"},
                  "treatments": {"insulin", "carbs", "glucose"}, "devicestatus": set()}
DATE_FIELD = {"entries": "date", "treatments": "created_at", "devicestatus": "created_at"}
UNAUTHORIZED = {"status": 401, "message": "Unauthorized", "description": "Invalid/Missing"}
ROUTE = re.compile(r"^/api/v1/(entries|treatments|devicestatus)(?:/([a-z]+))?(\.json|\.txt|\.tsv)?$")


def permitted(patterns: list[str], permission: str) -> bool:
    """Shiro-style: `*` matches any part, `a,b` either, a shorter pattern implies the rest."""
    wanted = permission.split(":")
    for pattern in patterns:
        parts = pattern.split(":")
        if len(parts) <= len(wanted) and all(part == "*" or wanted[index] in part.split(",")
                                             for index, part in enumerate(parts)):
            return True
    return False


def parse_time(text: str) -> tuple[int, int]:
    """An ISO 8601 date as Nightscout's moment.parseZone reads it: (epoch ms, offset minutes)."""
    value = text.strip().replace(" ", "T", 1)
    if value.endswith("Z"):
        value = value[:-1] + "+00:00"
    match = re.search(r"([+-])(\d{2})(\d{2})$", value)
    if match and not re.search(r"[+-]\d{2}:\d{2}$", value):
        value = value[:match.start()] + f"{match.group(1)}{match.group(2)}:{match.group(3)}"
    parsed = datetime.datetime.fromisoformat(value)
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=datetime.timezone.utc)
    offset = parsed.utcoffset() or datetime.timedelta(0)
    return int(parsed.timestamp() * 1000), int(offset.total_seconds() // 60)


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class Nightscout:
    def __init__(self, args: argparse.Namespace) -> None:
        if len(args.api_secret) < 12:
            raise SystemExit("API_SECRET must be at least 12 characters, as Nightscout requires")
        self.args = args
        self.secret_hash = hashlib.sha1(args.api_secret.encode()).hexdigest()
        self.default_permissions = [p for role in args.default_roles.split(",") if role
                                    for p in ROLES.get(role, [role])]
        self.tokens: dict[str, tuple[str, list[str]]] = {}
        for spec in args.token:
            name, _, roles = spec.partition("=")
            # Nightscout's access token: the subject's name, a dash, 16 hex digits of a SHA-1.
            access = f"{name.lower()}-{hashlib.sha1((self.secret_hash + name).encode()).hexdigest()[:16]}"
            self.tokens[access] = (name, [p for role in roles.split(",") if role for p in ROLES.get(role, [role])])
        self.lock = threading.Lock()
        self.collections: dict[str, list[dict]] = {"entries": [], "treatments": [], "devicestatus": []}
        self.next_id = 0
        self.seq = 0
        self.requests = 0
        self.rig: HttpsRig | None = None

    # --- authorization -----------------------------------------------------------------------

    def jwt_for(self, access: str) -> dict:
        name, permissions = self.tokens[access]
        issued = int(time.time())
        header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
        payload = b64url(json.dumps({"accessToken": access, "iat": issued, "exp": issued + 3600}).encode())
        signature = b64url(hmac.new(self.secret_hash.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest())
        return {"token": f"{header}.{payload}.{signature}", "sub": name, "permissions": permissions,
                "iat": issued, "exp": issued + 3600}

    def verify_jwt(self, token: str) -> str | None:
        try:
            header, payload, signature = token.split(".")
            expected = b64url(hmac.new(self.secret_hash.encode(), f"{header}.{payload}".encode(), hashlib.sha256).digest())
            if not hmac.compare_digest(expected, signature):
                return None
            claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
            if claims.get("exp", 0) < time.time() or claims.get("accessToken") not in self.tokens:
                return None
            return claims["accessToken"]
        except (ValueError, KeyError):
            return None

    def authorize(self, request: Request, permission: str) -> tuple[str | None, Response | None]:
        """(how the request was allowed, or the refusal)."""
        secret = request.first("secret") or request.headers.get("api-secret")
        if secret is not None and secret == self.secret_hash:
            return "api-secret", None
        authorization = request.headers.get("authorization", "")
        parts = authorization.split(" ")
        if len(parts) == 2 and parts[0] == "Bearer":
            access = self.verify_jwt(parts[1])
            if access is None:
                return None, Response.text(401, "Unauthorized - Invalid/Missing", "text/html; charset=utf-8")
            if permitted(self.tokens[access][1], permission) or permitted(self.default_permissions, permission):
                return "jwt", None
            return None, Response.json(401, UNAUTHORIZED)
        access = request.first("token")
        if access in self.tokens and permitted(self.tokens[access][1], permission):
            return "token", None
        if permitted(self.default_permissions, permission):
            return "default", None
        return None, Response.json(401, UNAUTHORIZED)

    # --- the API ----------------------------------------------------------------------------

    def handle(self, request: Request) -> Response:
        path = request.path
        if path.startswith("/api/v2/authorization/request/") and request.method == "GET":
            access = path.rsplit("/", 1)[1]
            if access not in self.tokens:
                return Response.json(401, UNAUTHORIZED)
            return Response.json(200, self.jwt_for(access))
        if path in ("/api/v1/status", "/api/v1/status.json") and request.method == "GET":
            how, refusal = self.authorize(request, "api:status:read")
            if refusal:
                return refusal
            now = now_ms()
            return Response.json(200, {"status": "ok", "name": "nightscout", "version": "15.0.3",
                                       "serverTime": iso(now), "serverTimeEpoch": now, "apiEnabled": True,
                                       "careportalEnabled": True, "settings": {"units": "mg/dl"},
                                       "extendedSettings": {}, "authorized": None})
        if path == "/api/v1/verifyauth" and request.method == "GET":
            how, _ = self.authorize(request, "api:entries:read")
            can_write = self.authorize(request, "api:entries:create")[0] is not None
            return Response.json(200, {"status": 200, "message": {
                "canRead": how is not None, "canWrite": can_write, "isAdmin": how == "api-secret",
                "message": "OK" if how else "UNAUTHORIZED"}})
        match = ROUTE.match(path)
        if not match:
            return Response.text(404, f"Cannot {request.method} {path}", "text/html; charset=utf-8")
        collection, subtype, extension = match.groups()
        if request.method == "POST" and subtype is None:
            how, refusal = self.authorize(request, f"api:{collection}:create")
            return refusal or self.create(collection, request, how or "")
        if request.method == "GET":
            how, refusal = self.authorize(request, f"api:{collection}:read")
            return refusal or self.list(collection, subtype, extension, request)
        return Response.text(405 if request.method not in ("GET", "POST") else 404,
                             f"Cannot {request.method} {path}", "text/html; charset=utf-8")

    def new_id(self) -> str:
        self.next_id += 1
        return f"{int(time.time()):08x}{0x7619a1:06x}{self.next_id:010x}"[-24:]

    def create(self, collection: str, request: Request, how: str) -> Response:
        try:
            value = request.json()
        except (ValueError, UnicodeDecodeError):
            return Response.text(400, "Bad Request: invalid JSON", "text/html; charset=utf-8")
        documents = value if isinstance(value, list) else [value]
        if not all(isinstance(document, dict) for document in documents):
            return Response.json(400, {"status": 400, "message": "Bad Request", "description": "documents must be objects"})
        with self.lock:
            self.requests += 1
            stored: list[tuple[dict, bool]] = []
            for document in documents:
                document = dict(document)
                document.pop("secret", None)
                if collection == "entries":
                    result = self.upsert_entry(document)
                elif collection == "treatments":
                    result = self.upsert_treatment(document)
                else:
                    document.setdefault("created_at", iso(now_ms()))
                    document["_id"] = self.new_id()
                    self.collections[collection].append(document)
                    result = (document, False)
                if isinstance(result, Response):
                    return result
                stored.append(result)
            for document, duplicate in stored:
                self.seq += 1
                assert self.rig is not None
                self.rig.out.emit_record(accepted=collection, seq=self.seq, request=self.requests, auth=how,
                                         duplicate=duplicate, document=document)
        # Nightscout answers with the documents it was sent, an `_id` on those it inserted.
        return Response.json(200, [document if not duplicate else {k: v for k, v in document.items() if k != "_id"}
                                   for document, duplicate in stored])

    def upsert_entry(self, document: dict) -> tuple[dict, bool] | Response:
        if "type" in document and document["type"] is not None and not isinstance(document["type"], str):
            return Response.json(400, {"status": 400, "message": "Bad Request", "description": "Entry type must be a string"})
        if document.get("dateString"):
            try:
                ms, offset = parse_time(str(document["dateString"]))
            except ValueError:
                return Response.json(400, {"status": 400, "message": "Bad Request",
                                           "description": f"cannot parse dateString {document['dateString']!r}"})
        elif isinstance(document.get("date"), (int, float)):
            ms, offset = int(document["date"]), 0
        else:
            ms, offset = now_ms(), 0
        document["utcOffset"] = offset
        document["sysTime"] = iso(ms)
        if document.get("dateString"):
            document["dateString"] = document["sysTime"]
        document.pop("_id", None)  # the server controls _id
        if document.get("type"):
            for existing in self.collections["entries"]:
                if existing.get("sysTime") == document["sysTime"] and existing.get("type") == document["type"]:
                    existing.update(document)
                    return dict(existing), True
        document["_id"] = self.new_id()
        self.collections["entries"].append(document)
        return dict(document), False

    def upsert_treatment(self, document: dict) -> tuple[dict, bool] | Response:
        when = document.pop("eventTime", None) or document.get("created_at")
        try:
            ms, offset = parse_time(str(when)) if when else (now_ms(), 0)
        except ValueError:
            ms, offset = now_ms(), 0
        document["created_at"] = iso(ms)
        document["utcOffset"] = offset
        document.pop("_id", None)
        for index, existing in enumerate(self.collections["treatments"]):
            same = (existing.get("identifier") == document["identifier"]) if document.get("identifier") else \
                (existing.get("created_at") == document["created_at"] and existing.get("eventType") == document.get("eventType"))
            if same:
                document["_id"] = existing["_id"]
                self.collections["treatments"][index] = document
                return dict(document), True
        document["_id"] = self.new_id()
        self.collections["treatments"].append(document)
        return dict(document), False

    def list(self, collection: str, subtype: str | None, extension: str | None, request: Request) -> Response:
        date_field = DATE_FIELD[collection]
        numeric = NUMERIC_FIELDS[collection]
        conditions: list[tuple[str, str, object]] = []
        for key, values in request.query.items():
            if not key.startswith("find["):
                continue
            parts = re.findall(r"\[([^\]]*)\]", key)
            field, operator = parts[0], parts[1] if len(parts) > 1 else "$eq"
            value: object = values[-1]
            if field in numeric:
                value = int(float(str(value)))
            elif field == date_field and collection != "entries":
                value = iso(parse_time(str(value))[0])
            conditions.append((field, operator, value))
        if subtype:
            conditions.append(("type", "$eq", subtype))
        if not any(field in (date_field, "dateString") for field, _, _ in conditions):
            since = now_ms() - FOUR_DAYS_MS
            conditions.append((date_field, "$gte", since if collection == "entries" else iso(since)))
        operators = {"$eq": lambda a, b: a == b, "$ne": lambda a, b: a != b, "$gt": lambda a, b: a > b,
                     "$gte": lambda a, b: a >= b, "$lt": lambda a, b: a < b, "$lte": lambda a, b: a <= b}

        def matches(document: dict) -> bool:
            for field, operator, value in conditions:
                have = document.get(field)
                if have is None or operator not in operators:
                    return False
                try:
                    if not operators[operator](have, value):
                        return False
                except TypeError:
                    return False
            return True

        with self.lock:
            found = [dict(d) for d in self.collections[collection] if matches(d)]
        found.sort(key=lambda d: d.get(date_field) or 0, reverse=True)
        count = request.first("count")
        limit = int(count) if count else (10 if collection in ("entries", "devicestatus") else None)
        if limit is not None:
            found = found[:max(limit, 0)]
        accept = request.headers.get("accept", "")
        if collection == "entries" and extension != ".json" and (extension in (".txt", ".tsv") or "application/json" not in accept):
            # Nightscout's entries without .json, for a client that does not ask for JSON: one
            # tab-separated line each.
            lines = [f'"{d.get("dateString", "")}"\t{d.get("date", "")}\t{d.get("sgv", d.get("mbg", ""))}\t'
                     f'"{d.get("direction", "")}"\t"{d.get("device", "")}"' for d in found]
            return Response.text(200, "\n".join(lines), "text/plain; charset=utf-8")
        return Response.json(200, found)

    # --- control -----------------------------------------------------------------------------

    def control(self, command: dict) -> dict | None:
        if "serve" in command:
            collection = command.get("collection", "entries")
            served = []
            with self.lock:
                for document in command["serve"]:
                    document = dict(document)
                    if "ageSeconds" in document:
                        ms = now_ms() - int(float(document.pop("ageSeconds")) * 1000)
                        date_field = DATE_FIELD[collection]
                        if collection == "entries":
                            document["date"], document["dateString"] = ms, iso(ms)
                        else:
                            document[date_field] = iso(ms)
                    if collection == "entries":
                        ms = document.get("date") or parse_time(document["dateString"])[0]
                        document.setdefault("dateString", iso(ms))
                        document["sysTime"] = iso(ms)
                        document.setdefault("utcOffset", 0)
                    document["_id"] = self.new_id()
                    self.collections[collection].append(document)
                    served.append(document)
            return {"served": served}
        if command.get("clear"):
            with self.lock:
                for documents in self.collections.values():
                    documents.clear()
            return {"cleared": True}
        if "dump" in command:
            with self.lock:
                return {"documents": [dict(d) for d in self.collections[command["dump"]]]}
        return None


def fault_body(_request: Request, status: int) -> Response:
    if status == 401:
        return Response.json(401, UNAUTHORIZED)
    if status == 500:
        return Response.json(500, {"status": 500, "message": "Mongo Error", "description": "the rig's 500 fault"})
    # What a host's router sends when the app is down (a page, not Nightscout's JSON).
    return Response.text(status, "<html><body><h1>Application Error</h1></body></html>", "text/html; charset=utf-8")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common_arguments(parser)
    parser.add_argument("--api-secret", default="vigil-test-api-secret", help="the site's API_SECRET (12 characters or more)")
    parser.add_argument("--token", action="append", default=[], help="NAME=ROLE[,ROLE]: an access token subject (repeatable)")
    parser.add_argument("--default-roles", default="denied",
                        help="what anyone may do (Nightscout's AUTH_DEFAULT_ROLES; default denied)")
    parser.add_argument("--name", action="append", default=[], help="host names for the certificate besides localhost")
    args = parser.parse_args()
    site = Nightscout(args)
    rig = HttpsRig("nightscout", args, args.name or ["nightscout.test"], site.handle, site.control,
                   {"apiSecretSha1": site.secret_hash,
                    "tokens": {name: access for access, (name, _) in site.tokens.items()},
                    "defaultRoles": args.default_roles}, fault_body=fault_body)
    site.rig = rig
    return rig.run()


if __name__ == "__main__":
    sys.exit(main())
