"""The network rigs checked against themselves, without Vigil: `nightscout_server.py` and
`follow_server.py` driven by Python's own HTTPS client (http.client over ssl, verifying with
the rig's test CA) and, for Nightscout reads, by py-nightscout (pinned in scripts/bumble-env.sh).
A broken rig shows here, not as a puzzling failure of an interop test.

    PY=$(scripts/bumble-env.sh | tail -n1)
    $PY Tests/Rigs/check_network_rigs.py        # `CHECK ok|FAIL` lines, then "N passed, N failed"

Connections go to 127.0.0.1 with the service's host name as TLS server name and Host header,
the way `vigil run --connect-to` reaches the rigs.
"""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import json
import socket
import ssl
import time
import urllib.parse

import aiohttp
import py_nightscout
from check_common import Checks, RigProcess, run_main

SECRET = "check-rigs-api-secret"


class Client:
    """One rig as a client sees it: `request(...)` returns (status, headers, body) or raises."""

    def __init__(self, rig: RigProcess) -> None:
        self.port = rig.info["port"]
        self.control_port = rig.info["control"]
        self.context = ssl.create_default_context(cafile=rig.info["ca"])

    def request(self, host: str, method: str, target: str, body: object | None = None,
                headers: dict[str, str] | None = None, timeout: float = 5.0) -> tuple[int, dict, bytes]:
        raw = socket.create_connection(("127.0.0.1", self.port), timeout=timeout)
        try:
            connection = self.context.wrap_socket(raw, server_hostname=host)
            data = b"" if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
            head = [f"{method} {target} HTTP/1.1", f"Host: {host}", "Connection: close",
                    f"Content-Length: {len(data)}"]
            if body is not None:
                head.append("Content-Type: application/json")
            head += [f"{name}: {value}" for name, value in (headers or {}).items()]
            connection.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + data)
            response = http.client.HTTPResponse(connection)
            response.begin()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        finally:
            raw.close()

    def json(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201
        status, _, body = self.request(*args, **kwargs)
        return status, json.loads(body) if body else None

    def control(self, command: dict) -> dict:
        connection = http.client.HTTPConnection("127.0.0.1", self.control_port, timeout=5)
        connection.request("POST", "/control", json.dumps(command), {"Content-Type": "application/json"})
        answer = json.loads(connection.getresponse().read())
        connection.close()
        return answer


def error_of(call) -> str:  # noqa: ANN001
    try:
        call()
    except ssl.SSLCertVerificationError as error:
        return f"verify:{error.verify_message}"
    except ConnectionRefusedError:
        return "refused"
    except (socket.timeout, TimeoutError):
        return "timeout"
    except (http.client.RemoteDisconnected, ConnectionResetError, http.client.IncompleteRead):
        return "closed"
    except OSError as error:
        return f"oserror:{error}"
    return "none"


async def accepted(rig: RigProcess, collection: str, count: int) -> list[dict]:
    """The rig's `accepted` records of `collection` once there are `count` (the rig prints them
    before it answers; this process reads its stdout on its own schedule)."""
    def records() -> list[dict]:
        return [r for r in rig.lines if r.get("accepted") == collection]
    await rig.wait_for(lambda _: len(records()) >= count, 5)
    return records()


async def check_nightscout(checks: Checks) -> None:
    rig = RigProcess("nightscout_server.py")
    await rig.start(["--api-secret", SECRET, "--token", "uploader=admin", "--token", "reader=readable"])
    try:
        c = Client(rig)
        host = "nightscout.test"
        secret = {"api-secret": hashlib.sha1(SECRET.encode()).hexdigest()}
        checks.check(rig.info.get("apiSecretSha1") == secret["api-secret"], "nightscout: rig line gives the secret's SHA-1")
        reader, uploader = rig.info["tokens"]["reader"], rig.info["tokens"]["uploader"]

        status, document = await asyncio.to_thread(c.json, host, "GET", "/api/v1/status.json", headers=secret)
        checks.check(status == 200 and document["status"] == "ok", "nightscout: status.json over verified TLS", status)

        now = int(time.time() * 1000) // 1000 * 1000
        entries = [{"type": "sgv", "sgv": 100 + i, "date": now - (2 - i) * 300_000, "direction": "Flat",
                    "dateString": time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime((now - (2 - i) * 300_000) / 1000))}
                   for i in range(3)]
        status, answer = await asyncio.to_thread(c.json, host, "POST", "/api/v1/entries", entries, secret)
        checks.check(status == 200 and len(answer) == 3 and all("_id" in a for a in answer),
                     "nightscout: POST entries answers the documents with an _id each", (status, answer))
        records = await accepted(rig, "entries", 3)
        checks.check([r["seq"] for r in records] == [1, 2, 3] and not any(r["duplicate"] for r in records)
                     and [r["document"]["sgv"] for r in records] == [100, 101, 102],
                     "nightscout: every stored entry recorded once, in arrival order", records)
        status, answer = await asyncio.to_thread(c.json, host, "POST", "/api/v1/entries", entries, secret)
        records = await accepted(rig, "entries", 6)
        checks.check(status == 200 and [r["duplicate"] for r in records[3:]] == [True] * 3
                     and not any("_id" in a for a in answer),
                     "nightscout: the same entries again are duplicates (date and type), answered without _id", answer)
        dump = c.control({"dump": "entries"})["result"]["documents"]
        checks.check(len(dump) == 3, "nightscout: the store still holds three entries", len(dump))
        status, _ = await asyncio.to_thread(c.json, host, "POST", "/api/v1/entries",
                                            [{"type": "mbg", "mbg": 99, "date": entries[2]["date"],
                                              "dateString": entries[2]["dateString"]}], secret)
        checks.check(len(c.control({"dump": "entries"})["result"]["documents"]) == 4,
                     "nightscout: same time, another type is another entry")

        status, got = await asyncio.to_thread(c.json, host, "GET", "/api/v1/entries/sgv.json?count=2", headers=secret)
        checks.check(status == 200 and [e["sgv"] for e in got] == [102, 101], "nightscout: count=2, newest first", got)
        query = urllib.parse.urlencode({"find[date][$gt]": entries[0]["date"], "count": 10})
        status, got = await asyncio.to_thread(c.json, host, "GET", f"/api/v1/entries.json?{query}", headers=secret)
        # Newest first; the sgv and the mbg of the same time in the order they were stored.
        checks.check(status == 200 and [e.get("sgv", e.get("mbg")) for e in got] == [102, 99, 101],
                     "nightscout: find[date][$gt] keeps only the later entries", got)
        status, headers, body = await asyncio.to_thread(c.request, host, "GET", "/api/v1/entries?count=1", None, secret)
        checks.check(status == 200 and headers["content-type"].startswith("text/plain") and b"\t" in body,
                     "nightscout: entries without .json for a client not asking JSON are tab-separated text", body)

        unauthorized = {"status": 401, "message": "Unauthorized", "description": "Invalid/Missing"}
        status, answer = await asyncio.to_thread(c.json, host, "GET", "/api/v1/entries.json", headers={"api-secret": "wrong"})
        checks.check(status == 401 and answer == unauthorized, "nightscout: a wrong api-secret gets Nightscout's 401", answer)
        status, _ = await asyncio.to_thread(c.json, host, "POST", "/api/v1/entries", entries, {"api-secret": SECRET})
        checks.check(status == 401, "nightscout: the secret itself (not its SHA-1) is refused", status)
        status, _ = await asyncio.to_thread(c.json, host, "GET", "/api/v1/entries.json")
        checks.check(status == 401, "nightscout: no credentials, default roles denied: 401", status)
        status, _ = await asyncio.to_thread(c.json, host, "GET", f"/api/v1/entries.json?token={reader}")
        checks.check(status == 200, "nightscout: a readable token reads", status)
        status, _ = await asyncio.to_thread(c.json, host, "POST", f"/api/v1/entries?token={reader}", entries)
        checks.check(status == 401, "nightscout: a readable token cannot upload", status)
        status, _ = await asyncio.to_thread(c.json, host, "POST", f"/api/v1/entries?token={uploader}", entries)
        checks.check(status == 200, "nightscout: an admin token uploads", status)
        status, issued = await asyncio.to_thread(c.json, host, "GET", f"/api/v2/authorization/request/{reader}")
        checks.check(status == 200 and issued["token"].count(".") == 2, "nightscout: a token is exchanged for a JWT", issued)
        status, _ = await asyncio.to_thread(c.json, host, "GET", "/api/v1/entries.json",
                                            headers={"Authorization": f"Bearer {issued['token']}"})
        checks.check(status == 200, "nightscout: the JWT reads", status)
        status, _, body = await asyncio.to_thread(c.request, host, "GET", "/api/v1/entries.json", None,
                                                  {"Authorization": f"Bearer {issued['token']}x"})
        checks.check(status == 401 and body == b"Unauthorized - Invalid/Missing", "nightscout: a forged JWT is refused", body)

        treatment = {"eventType": "BG Check", "glucose": 98, "glucoseType": "Finger", "units": "mg/dl",
                     "created_at": entries[1]["dateString"]}
        await asyncio.to_thread(c.json, host, "POST", "/api/v1/treatments", [treatment], secret)
        await asyncio.to_thread(c.json, host, "POST", "/api/v1/treatments", [treatment], secret)
        treatments = await accepted(rig, "treatments", 2)
        checks.check([r["duplicate"] for r in treatments] == [False, True],
                     "nightscout: a treatment with the same created_at and eventType replaces the first", treatments)
        status_doc = {"device": "vigil", "uploader": {"battery": 80}}
        await asyncio.to_thread(c.json, host, "POST", "/api/v1/devicestatus", status_doc, secret)
        await asyncio.to_thread(c.json, host, "POST", "/api/v1/devicestatus", status_doc, secret)
        statuses = await accepted(rig, "devicestatus", 2)
        checks.check([r["duplicate"] for r in statuses] == [False, False], "nightscout: device statuses are always added")

        # Faults, switched while it runs.
        get = lambda: c.request(host, "GET", "/api/v1/status.json", None, secret, timeout=1.0)  # noqa: E731
        expectations = [("refuse", "refused"), ("wrong-cert", "verify:unable to get local issuer certificate"),
                        ("wrong-name", "verify:Hostname mismatch, certificate is not valid for 'nightscout.test'."),
                        ("expired", "verify:certificate has expired"), ("silent", "timeout"),
                        ("no-answer", "timeout"), ("hang-up", "closed"), ("normal", "none")]
        for mode, expected in expectations:
            c.control({"fault": mode})
            start = len(rig.lines)
            got = await asyncio.to_thread(error_of, get)
            checks.check(got == expected, f"nightscout: fault {mode} looks like {expected}", got)
            if mode in ("silent", "no-answer"):
                held = await rig.wait_for(lambda r: r.get("event") == "held-closed-by-client" and rig.lines.index(r) >= start, 3)
                checks.check(held is not None, f"nightscout: fault {mode} reports the client giving up", held)
        before = len(await accepted(rig, "entries", 10))
        c.control({"fault": "lost-answer"})
        fresh = [{"type": "sgv", "sgv": 150, "date": now + 60_000}]
        got = await asyncio.to_thread(error_of, lambda: c.request(host, "POST", "/api/v1/entries", fresh, secret, 2.0))
        stored = await rig.wait_for(lambda r: r.get("accepted") == "entries" and r["document"].get("sgv") == 150, 2)
        checks.check(got == "closed" and stored is not None and len(await accepted(rig, "entries", before + 1)) == before + 1,
                     "nightscout: lost-answer stores the upload, then hangs up", (got, stored))
        c.control({"fault": "status", "status": 401})
        status, answer = await asyncio.to_thread(c.json, host, "GET", "/api/v1/status.json", headers=secret)
        checks.check(status == 401 and answer == unauthorized, "nightscout: fault status 401 answers Nightscout's body", answer)
        c.control({"fault": "status", "status": 503, "times": 1})
        first = (await asyncio.to_thread(c.request, host, "GET", "/api/v1/status.json", None, secret))[0]
        second = (await asyncio.to_thread(c.request, host, "GET", "/api/v1/status.json", None, secret))[0]
        checks.check((first, second) == (503, 200), "nightscout: a fault for one connection, then normal", (first, second))
        c.control({"fault": "slow", "seconds": 0.5})
        started = time.monotonic()
        status = (await asyncio.to_thread(c.request, host, "GET", "/api/v1/status.json", None, secret))[0]
        took = time.monotonic() - started
        checks.check(status == 200 and took >= 0.5, "nightscout: slow answers late", round(took, 2))
        c.control({"fault": "normal"})

        # Served readings (a follower's view), read by py-nightscout.
        c.control({"clear": True})
        c.control({"serve": [{"type": "sgv", "sgv": 52, "delta": -3, "direction": "SingleDown", "ageSeconds": 30},
                             {"type": "sgv", "sgv": 55, "delta": -4, "direction": "SingleDown", "ageSeconds": 330}]})
        connector = aiohttp.TCPConnector(ssl=c.context)
        async with aiohttp.ClientSession(connector=connector) as session:
            api = py_nightscout.Api(f"https://localhost:{c.port}", api_secret=SECRET, session=session)
            sgvs = await api.get_sgvs()
        ages = [time.time() - s.date.timestamp() for s in sgvs]
        checks.check([s.sgv for s in sgvs] == [52, 55] and 25 <= ages[0] <= 60 and 325 <= ages[1] <= 360,
                     "nightscout: py-nightscout reads the served readings, dated as told", (sgvs and [s.sgv for s in sgvs], ages))
    finally:
        checks.check(await rig.stop() == 0, "nightscout: the rig exits cleanly on stdin EOF")


async def check_follow(checks: Checks) -> None:
    rig = RigProcess("follow_server.py")
    await rig.start(["--libre-region", "eu", "--libre-extra-patient", "Other Person"])
    try:
        c = Client(rig)
        share, services = "share2.dexcom.com", "/ShareWebServices/Services/"
        app = "d89443d2-327c-4a6f-89e5-496bbb0317db"
        user, password = rig.info["dexcom"]["user"], "share-password-1"
        set_at = int(time.time() * 1000)
        c.control({"readings": [{"mgdl": 60, "ageSeconds": 10, "trend": "FortyFiveDown"},
                                {"mgdl": 70, "ageSeconds": 310, "trend": "Flat"},
                                {"mgdl": 80, "ageSeconds": 610, "trend": "Flat"}]})

        status, answer = await asyncio.to_thread(c.json, share, "POST", services + "General/AuthenticatePublisherAccount",
                                                 {"accountName": user, "password": "wrong", "applicationId": app})
        checks.check(status == 500 and answer["Code"] == "AccountPasswordInvalid" and answer["TypeName"] == "FaultException",
                     "dexcom: a wrong password is a 500 AccountPasswordInvalid fault", answer)
        status, account = await asyncio.to_thread(c.json, share, "POST", services + "General/AuthenticatePublisherAccount",
                                                  {"accountName": user, "password": password, "applicationId": app})
        checks.check(status == 200 and account == rig.info["dexcom"]["accountId"], "dexcom: authenticate gives the account id", account)
        status, session = await asyncio.to_thread(c.json, share, "POST", services + "General/LoginPublisherAccountById",
                                                  {"accountId": account, "password": password, "applicationId": app})
        checks.check(status == 200 and isinstance(session, str) and len(session) == 36, "dexcom: login by id gives a session", session)
        read = f"{services}Publisher/ReadPublisherLatestGlucoseValues?sessionId={session}&minutes=1440&maxCount=288"
        status, values = await asyncio.to_thread(c.json, share, "POST", read, {})
        checks.check(status == 200 and [v["Value"] for v in values] == [60, 70, 80]
                     and values[0]["Trend"] == "FortyFiveDown" and values[0]["DT"].endswith("+0000)"),
                     "dexcom: readings newest first with value and trend", values)
        newest = int(values[0]["WT"][5:-1]) if values else 0
        checks.check(abs((set_at - 10_000) - newest) < 1000, "dexcom: WT is the reading's time", newest - set_at)
        status, values = await asyncio.to_thread(c.json, share, "POST", read.replace("minutes=1440", "minutes=6"), {})
        checks.check([v["Value"] for v in values] == [60, 70], "dexcom: minutes bounds the age", values)
        status, values = await asyncio.to_thread(c.json, share, "POST", read.replace("maxCount=288", "maxCount=1"), {})
        checks.check([v["Value"] for v in values] == [60], "dexcom: maxCount bounds the count", values)
        status, values = await asyncio.to_thread(c.json, "shareous1.dexcom.com", "POST", read, {})
        checks.check(status == 200 and len(values) == 3, "dexcom: the outside-US host answers too", status)
        c.control({"expire-sessions": True})
        status, answer = await asyncio.to_thread(c.json, share, "POST", read, {})
        checks.check(status == 500 and answer["Code"] == "SessionIdNotFound", "dexcom: an expired session is SessionIdNotFound", answer)
        status, answer = await asyncio.to_thread(
            c.json, share, "POST", read.replace(session, "00000000-0000-0000-0000-000000000000"), {})
        checks.check(status == 500 and answer["Code"] == "SessionNotValid", "dexcom: the all-zero session is SessionNotValid", answer)
        status, session = await asyncio.to_thread(c.json, share, "POST", services + "General/LoginPublisherAccountByName",
                                                  {"accountName": user, "password": password, "applicationId": app})
        status, values = await asyncio.to_thread(
            c.json, share, "POST", f"{services}Publisher/ReadPublisherLatestGlucoseValues?sessionId={session}&minutes=1440&maxCount=3", {})
        checks.check(status == 200 and len(values) == 3, "dexcom: the one-step login by name works too", status)

        # Host and TLS server name must agree (what --connect-to keeps).
        raw = socket.create_connection(("127.0.0.1", c.port), timeout=5)
        tls = c.context.wrap_socket(raw, server_hostname="share2.dexcom.com")
        tls.sendall(b"POST /x HTTP/1.1\r\nHost: api.libreview.io\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        checks.check(tls.recv(100).startswith(b"HTTP/1.1 421"), "follow: a Host other than the TLS name is 421")
        tls.close()

        # LibreLinkUp.
        llu = {"product": "llu.android", "version": "4.16.0"}
        email, libre_password = rig.info["libre"]["email"], "libre-password-1"
        status, answer = await asyncio.to_thread(c.json, "api.libreview.io", "POST", "/llu/auth/login",
                                                 {"email": email, "password": libre_password}, llu)
        checks.check(status == 200 and answer == {"status": 0, "data": {"redirect": True, "region": "eu"}},
                     "libre: the global host redirects to the account's region", answer)
        status, answer = await asyncio.to_thread(c.json, "api-eu.libreview.io", "POST", "/llu/auth/login",
                                                 {"email": email, "password": "wrong"}, llu)
        checks.check(status == 200 and answer["status"] == 2 and answer["error"]["message"] == "notAuthenticated",
                     "libre: a wrong password is status 2 notAuthenticated", answer)
        status, answer = await asyncio.to_thread(c.json, "api-eu.libreview.io", "POST", "/llu/auth/login",
                                                 {"email": email, "password": libre_password}, {"product": "llu.android"})
        checks.check(status == 400 and answer == {"message": "RequiredHeaderMissing"}, "libre: no version header is 400", answer)
        status, _, _ = await asyncio.to_thread(c.request, "api-eu.libreview.io", "POST", "/llu/auth/login",
                                               {"email": email, "password": libre_password},
                                               {"product": "llu.android", "version": "4.7.0"})
        checks.check(status == 403, "libre: an old version is 403", status)
        status, login = await asyncio.to_thread(c.json, "api-eu.libreview.io", "POST", "/llu/auth/login",
                                                {"email": email, "password": libre_password}, llu)
        token, user_id = login["data"]["authTicket"]["token"], login["data"]["user"]["id"]
        checks.check(status == 200 and login["status"] == 0 and user_id == rig.info["libre"]["userId"],
                     "libre: login at the region gives a token and the user id", login)
        authorized = {**llu, "Authorization": f"Bearer {token}"}
        status, answer = await asyncio.to_thread(c.json, "api-eu.libreview.io", "GET", "/llu/connections", None, authorized)
        checks.check(status == 400 and answer == {"message": "RequiredHeaderMissing"}, "libre: no Account-Id is 400", answer)
        full = {**authorized, "Account-Id": hashlib.sha256(user_id.encode()).hexdigest()}
        status, answer = await asyncio.to_thread(c.json, "api-eu.libreview.io", "GET", "/llu/connections", None, full)
        connections = [x for x in answer["data"] if x["firstName"] == "Emma"] if status == 200 else []
        checks.check(status == 200 and [x["firstName"] for x in answer["data"]] == ["Other", "Emma"]
                     and connections[0]["glucoseMeasurement"]["ValueInMgPerDl"] == 60
                     and connections[0]["glucoseMeasurement"]["TrendArrow"] == 2,
                     "libre: connections list the patients with the newest measurement", answer)
        factory = connections[0]["glucoseMeasurement"]["FactoryTimestamp"] if connections else ""
        parsed = time.mktime(time.strptime(factory, "%m/%d/%Y %I:%M:%S %p")) - time.timezone if factory else 0
        checks.check(abs(parsed - (set_at / 1000 - 10)) < 2, "libre: FactoryTimestamp is the reading's UTC time", factory)
        status, _ = await asyncio.to_thread(c.json, "api-us.libreview.io", "GET", "/llu/connections", None, full)
        checks.check(status == 401, "libre: a token is refused on another region's host", status)
        patient = connections[0]["patientId"] if connections else "none"
        status, graph = await asyncio.to_thread(c.json, "api-eu.libreview.io", "GET", f"/llu/connections/{patient}/graph", None, full)
        checks.check(status == 200 and [g["ValueInMgPerDl"] for g in graph["data"]["graphData"]] == [80, 70]
                     and graph["data"]["connection"]["glucoseMeasurement"]["Value"] == 60,
                     "libre: graph has the history oldest first and the newest measurement", graph and graph.get("data", {}).get("graphData"))
        c.control({"expire-sessions": True})
        status, answer = await asyncio.to_thread(c.json, "api-eu.libreview.io", "GET", "/llu/connections", None, full)
        checks.check(status == 401 and answer == {"message": "invalid or expired jwt"}, "libre: an expired token is 401", answer)

        c.control({"fault": "refuse"})
        got = await asyncio.to_thread(error_of, lambda: c.request(share, "POST", read, {}, timeout=1.0))
        c.control({"fault": "normal"})
        again = await asyncio.to_thread(error_of, lambda: c.request(share, "POST", read, {}, timeout=1.0))
        checks.check((got, again) == ("refused", "none"), "follow: refuse, then back on the same port", (got, again))
    finally:
        checks.check(await rig.stop() == 0, "follow: the rig exits cleanly on stdin EOF")


async def run() -> int:
    checks = Checks()
    await check_nightscout(checks)
    await check_follow(checks)
    return checks.finish()


if __name__ == "__main__":
    run_main(run(), timeout=120)
