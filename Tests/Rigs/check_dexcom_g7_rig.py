#!/usr/bin/env python3
"""Proves dexcom_g7.py works before Vigil is tested against it, with a Bumble *central* playing
the display (docs/protocols/dexcom-g7.md).

Against one rig (`--code 1234`, credentials written to a temporary file): scan for DXCMxx and
0xFEBC; connect; the client side of the J-PAKE (party `client`, fixed round-3 randomizer,
g7_jpake.py) with the key compared to the rig's; the AES challenge; our certificates from the
credentials file (the sensor's own parsed as X.509); the key challenge signed with the file's
key and the sensor's signature verified; keep-alive, bond request, LE pairing and `08`; then
glucose, a backfill, versions and a calibration, each compared with the rig's NDJSON lines; the
sensor dropping the idle link. A second connection authenticates with the stored key only
(`05 01 01`), re-encrypts, and backfills the gap. Further rigs: a wrong code shows as the `03`
hash mismatch (and a stubborn `04` is refused `05 02 01`), then a bond request before verified
credentials is refused and a bad signature drops the link; `--credentials-from-other-ca` is
rejected; a ONE+ in warm-up and an expired Stelo answer their states; with every `--drop-at`
step armed, each cuts one link in order and a display that starts over gets through. Exits 0
only if every check passed (`CHECK ok|FAIL ...` lines); about 12 s.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import struct
import tempfile
import time

from bumble.core import UUID
from bumble.gatt import GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR
from bumble.device import Connection, Device, Peer
from bumble.keys import MemoryKeyStore
from cryptography import x509
from cryptography.hazmat.primitives.asymmetric import ec

import g7_credentials
import g7_jpake
from check_common import Checks, RigProcess, att_error_of, central, run_main, scan_for
from dexcom_g7 import AUTHENTICATION, BACKFILL, CERTIFICATE, CONTROL, DROP_STEPS, READING_INTERVAL, g7_hash

CENTRAL_ADDRESS = "F0:F1:F2:F3:F4:F7"
SPEED = 300  # sensor seconds per real second: a reading every second, a gap after a reconnect
TIMEOUT = 5.0


class Display:
    """One connection to the sensor, as the display sees it: Authentication replies in a queue,
    Certificate notifications as one byte stream, Control replies and Backfill payloads."""

    def __init__(self, connection: Connection, peer: Peer) -> None:
        self.connection = connection
        self.peer = peer
        self.replies: asyncio.Queue[bytes] = asyncio.Queue()
        self.stream = bytearray()
        self.streamed = asyncio.Event()
        self.control_replies: asyncio.Queue[bytes] = asyncio.Queue()
        self.backfill: list[bytes] = []

    @staticmethod
    async def open(device: Device, rig: RigProcess) -> "Display":
        connection = await device.connect(rig.address, timeout=10)
        peer = Peer(connection)
        await peer.discover_services()
        await peer.discover_characteristics()
        display = Display(connection, peer)
        display.auth, display.control, display.backfill_char, display.certificate = (
            peer.get_characteristics_by_uuid(UUID(uuid))[0]
            for uuid in (AUTHENTICATION, CONTROL, BACKFILL, CERTIFICATE))
        for characteristic in (display.auth, display.control, display.backfill_char, display.certificate):
            await peer.discover_descriptors(characteristic)
        await peer.subscribe(display.auth, lambda v: display.replies.put_nowait(bytes(v)), prefer_notify=False)
        await peer.subscribe(display.certificate, display.on_stream, prefer_notify=True)
        await peer.subscribe(display.backfill_char, lambda v: display.backfill.append(bytes(v)), prefer_notify=True)
        return display

    def on_stream(self, value: bytes) -> None:
        self.stream += bytes(value)
        self.streamed.set()

    async def reply(self) -> bytes:
        return await asyncio.wait_for(self.replies.get(), TIMEOUT)

    async def streamed_bytes(self, count: int) -> bytes:
        async def wait() -> None:
            while len(self.stream) < count:
                self.streamed.clear()
                await self.streamed.wait()
        await asyncio.wait_for(wait(), TIMEOUT)
        data, self.stream = bytes(self.stream[:count]), self.stream[count:]
        return data

    async def write_auth(self, value: bytes) -> None:
        await self.peer.write_value(self.auth, value, with_response=True)

    async def write_stream(self, payload: bytes) -> None:
        for offset in range(0, len(payload), 20):
            await self.peer.write_value(self.certificate, payload[offset:offset + 20], with_response=True)

    async def ask(self, request: bytes) -> bytes:
        await self.peer.write_value(self.control, request, with_response=True)
        return await asyncio.wait_for(self.control_replies.get(), TIMEOUT)


def count(rig: RigProcess, event: str) -> int:
    return sum(1 for r in rig.lines if r.get("event") == event)


async def jpake(display: Display, rig: RigProcess, checks: Checks, code: str, label: str) -> bytes:
    """The client side of the three rounds; returns the session key."""
    party = g7_jpake.Party(code, g7_jpake.CLIENT_PARTY, g7_jpake.SENSOR_PARTY, g7_jpake.ROUND3_RANDOMIZER)
    proofs_ok = acks_ok = True
    before = count(rig, "jpake-done")
    for k in range(3):
        await display.write_auth(bytes([0x0A, k]))
        packet = await display.streamed_bytes(g7_jpake.PACKET_LENGTH)
        acks_ok &= await display.reply() == bytes([0x0A, 0x00, k])
        proofs_ok &= party.receive(k, packet)
        await display.write_stream(party.packet(k))
    checks.check(acks_ok, f"{label}: J-PAKE rounds acknowledged 0A 00 k")
    checks.check(proofs_ok, f"{label}: the sensor's three proofs verify")
    key = party.session_key()
    done = await rig.wait_for(lambda r: count(rig, "jpake-done") > before)
    packets = [r for r in rig.lines if r.get("event") == "jpake-packet"][-3:]
    checks.check(len(packets) == 3 and all(p["proofValid"] for p in packets) and packets[-1]["fixedRandomizer"],
                 f"{label}: the sensor verified our proofs and saw the fixed round-3 randomizer", packets)
    checks.check(done is not None, f"{label}: rig logged jpake-done")
    return key


async def challenge(display: Display, key: bytes) -> tuple[bool, bytes]:
    """The AES challenge up to the sensor's `03`: (its hash of ours matches, its challenge)."""
    ours = os.urandom(8)
    await display.write_auth(b"\x02" + ours + b"\x02")
    reply = await display.reply()
    return len(reply) == 17 and reply[0] == 0x03 and reply[1:9] == g7_hash(key, ours), reply[9:17]


async def authenticate(display: Display, checks: Checks, key: bytes, bonded: bool, label: str) -> None:
    matches, theirs = await challenge(display, key)
    checks.check(matches, f"{label}: the sensor's 03 hash matches our key")
    await display.write_auth(b"\x04" + g7_hash(key, theirs))
    status = await display.reply()
    checks.check(status == bytes([0x05, 0x01, 0x01 if bonded else 0x02]),
                 f"{label}: 05 authenticated, bonded = {bonded}", status.hex())


async def certificates(display: Display, rig: RigProcess, checks: Checks,
                       credentials: g7_credentials.DisplayCredentials, label: str) -> x509.Certificate | None:
    """Sends our two certificates and the terminator; returns the sensor's leaf certificate."""
    theirs = []
    for index in (0, 1):
        der = credentials.der(index)
        await display.write_auth(bytes([0x0B, index]) + struct.pack("<I", len(der)))
        ack = await display.reply()
        checks.check(len(ack) == 5 and ack[:3] == bytes([0x0B, 0x00, index]), f"{label}: 0B {index} acknowledged",
                     ack.hex())
        blob = await display.streamed_bytes(struct.unpack("<H", ack[3:5])[0])
        theirs.append(x509.load_der_x509_certificate(blob))
        await display.write_stream(der)
    checks.check(theirs[1].verify_directly_issued_by(theirs[0]) is None,
                 f"{label}: the sensor's two certificates are DER X.509, its leaf issued by its CA")
    await display.write_auth(b"\x0b\x02\x00\x00\x00\x00")
    return theirs[1]


async def key_challenge(display: Display, checks: Checks, sensor_leaf: x509.Certificate,
                        signing_key, label: str) -> None:
    mine = os.urandom(16)
    await display.write_auth(b"\x0c" + mine)
    ack = await display.reply()
    checks.check(len(ack) == 18 and ack[:2] == b"\x0c\x00", f"{label}: 0C acknowledged with 16 bytes", ack.hex())
    signature = await display.streamed_bytes(64)
    checks.check(g7_credentials.verify_raw(sensor_leaf, mine, signature),
                 f"{label}: the sensor's 64-byte r||s signs our 16 bytes")
    await display.write_stream(g7_credentials.sign_raw(signing_key, ack[2:18]))


async def subscribe_control(display: Display) -> None:
    await display.peer.subscribe(display.control, lambda v: display.control_replies.put_nowait(bytes(v)),
                                 prefer_notify=False)


def parse_glucose(message: bytes) -> dict:
    _, status, now, sequence, _, age, glucose, state, trend, predicted, flags = \
        struct.unpack("<BBIHHHHBbHB", message)
    return {"status": status, "messageTime": now, "sequence": sequence, "sensorTime": now - age,
            "mgdl": None if glucose == 0xFFFF else glucose & 0x0FFF, "state": state,
            "trend": None if trend == 0x7F else trend, "flags": flags}


def parse_backfill(payloads: list[bytes]) -> list[list]:
    data = b"".join(payloads)
    records = []
    for offset in range(0, len(data) - len(data) % 9, 9):
        r = data[offset:offset + 9]
        glucose, state, _, trend = struct.unpack("<HBBb", r[4:9])
        records.append([int.from_bytes(r[0:3], "little"), None if glucose == 0xFFFF else glucose & 0x0FFF,
                        state, None if trend == 0x7F else trend])
    return records


async def glucose(display: Display, rig: RigProcess, checks: Checks, label: str) -> dict:
    message = await display.ask(b"\x4e")
    checks.check(len(message) == 19 and message[0] == 0x4E, f"{label}: 4E is 19 bytes", message.hex())
    parsed = parse_glucose(message)
    logged = await rig.wait_for(lambda r: r.get("sent") == "glucose" and r.get("hex") == message.hex())
    checks.check(logged is not None and all(logged[k] == parsed[k] for k in ("sensorTime", "mgdl", "trend", "state")),
                 f"{label}: glucose matches the rig's log", (parsed, logged))
    return parsed


async def backfill(display: Display, rig: RigProcess, checks: Checks, start: int, end: int, label: str) -> list:
    display.backfill.clear()
    done = await display.ask(b"\x59" + struct.pack("<II", start, end))
    checks.check(done == b"\x59\x00", f"{label}: backfill ends with 59 00 on Control", done.hex())
    records = parse_backfill(display.backfill)
    logged = await rig.wait_for(lambda r: r.get("sent") == "backfill" and r["start"] == start and r["end"] == end)
    checks.check(logged is not None and logged["records"] == records and
                 all(len(p) in (9, 18) for p in display.backfill),
                 f"{label}: {len(records)} backfill records, 9 bytes each, match the rig's log")
    return records


async def pair_fully(display: Display, rig: RigProcess, checks: Checks, code: str,
                     credentials: g7_credentials.DisplayCredentials, label: str) -> bytes:
    """A first pairing: J-PAKE, challenge, certificates, signature, keep-alive, bond, LE pairing."""
    key = await jpake(display, rig, checks, code, label)
    sensor_key = next(r["key"] for r in reversed(rig.lines) if r.get("event") == "jpake-done")
    checks.check(key.hex() == sensor_key, f"{label}: our session key equals the sensor's")
    await authenticate(display, checks, key, False, label)
    sensor_leaf = await certificates(display, rig, checks, credentials, label)
    checks.check(await display.reply() == b"\x0b\x00\x02\x00\x00", f"{label}: terminator acknowledged")
    await key_challenge(display, checks, sensor_leaf, credentials.key, label)
    checks.check(await rig.wait_for(lambda r: r.get("event") == "signature-ok") is not None,
                 f"{label}: the sensor verified our signature")
    await display.write_auth(b"\x06\x1e")
    checks.check(await display.reply() == b"\x06\x00", f"{label}: keep-alive acknowledged 06 00")
    await display.write_auth(b"\x07")
    checks.check(await display.reply() == b"\x07\x00", f"{label}: bond request acknowledged 07 00")
    await asyncio.wait_for(display.connection.pair(), 15)
    checks.check(display.connection.is_encrypted, f"{label}: LE paired and encrypted")
    checks.check(await display.reply() == b"\x08\x00", f"{label}: 08 00 after pairing")
    checks.check(await rig.wait_for(lambda r: r.get("event") == "bonded") is not None, f"{label}: rig logged bonded")
    return key


@contextlib.asynccontextmanager
async def sensor_rig(checks: Checks, directory: str, label: str, arguments: list[str]):
    """A G7 rig that writes its credentials into `directory`, and our display's central on its
    HCI port; the rig must exit cleanly when we are done."""
    path = os.path.join(directory, f"g7-{len(os.listdir(directory))}.pem")
    rig = RigProcess("dexcom_g7.py")
    await rig.start(arguments + ["--credentials-out", path])
    try:
        credentials = g7_credentials.DisplayCredentials.read(path)
        async with central(rig, CENTRAL_ADDRESS, MemoryKeyStore()) as device:
            yield rig, credentials, path, device
    finally:
        code = await rig.stop()
        checks.check(code == 0, f"{label}: rig exited cleanly", code)


async def main_sensor(checks: Checks, directory: str) -> None:
    """Pairing, data, the idle drop, and a second connection on the stored key."""
    arguments = ["--name", "DXCMAB", "--code", "1234", "--speed", str(SPEED), "--idle-drop", "1.5",
                 "--readvertise-after", "0.3"]
    async with sensor_rig(checks, directory, "main rig", arguments) as (rig, credentials, path, device):
        checks.check(rig.info.get("credentials") == path, "rig READY, credentials path announced")
        checks.check(os.stat(path).st_mode & 0o777 == 0o600, "credentials file is mode 0600",
                     oct(os.stat(path).st_mode))
        checks.check(credentials.leaf.verify_directly_issued_by(credentials.intermediate) is None,
                     "credentials file: intermediate, leaf issued by it, and a P-256 key")
        advertisement = await scan_for(device, rig.info["address"], 10)
        if checks.check(advertisement is not None, "scan found the rig"):
            ad = advertisement.data
            checks.check(ad.get(ad.COMPLETE_LOCAL_NAME) == "DXCMAB", "advertised name DXCMAB")
            services = [u.to_hex_str() for u in ad.get(ad.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS) or []]
            checks.check(services == ["FEBC"], "advertised 0xFEBC", services)

        label = "first connection"
        display = await Display.open(device, rig)
        key = await pair_fully(display, rig, checks, "1234", credentials, label)
        await subscribe_control(display)
        first = await glucose(display, rig, checks, label)
        checks.check(first["state"] == 6 and first["mgdl"] is not None and first["trend"] is not None
                     and first["trend"] < 0, f"{label}: state OK, a falling glucose", first)
        end = first["sensorTime"]
        records = await backfill(display, rig, checks, end - 3600, end, label)
        checks.check(len(records) == 13 and records[-1][:2] == [end, first["mgdl"]],
                     f"{label}: an hour of backfill ends with the live reading", [r[0] for r in records])
        version = await display.ask(b"\x52")
        session, warmup = struct.unpack("<IH", version[2:8])
        checks.check(len(version) == 15 and (session, warmup) == (907_200, 1620),
                     f"{label}: extended version 10.5 days, 27 min warm-up", version.hex())
        transmitter = await display.ask(b"\x4a")
        checks.check(transmitter.hex() == "4a002cc069489c37000031474141c03e55bcb300",
                     f"{label}: transmitter version", transmitter.hex())
        calibration = await display.ask(b"\x34" + struct.pack("<HI", 120, end))
        logged = await rig.wait_for(lambda r: r.get("received") == "calibration")
        checks.check(calibration == b"\x34\x00\x01\x00" and logged == {"received": "calibration", "mgdl": 120,
                                                                        "sensorTime": end},
                     f"{label}: calibration accepted and recorded", calibration.hex())
        bounds = await display.ask(b"\x32")
        checks.check(len(bounds) == 20 and bounds[:2] == b"\x32\x00", f"{label}: calibration bounds, 20 bytes")
        idle_started = time.monotonic()
        dropped = await rig.wait_for(lambda r: r.get("event") == "idle-drop", 5)
        gone = await rig.wait_for(lambda r: r.get("event") == "disconnected", 5)
        idle = time.monotonic() - idle_started
        checks.check(dropped is not None and gone is not None and gone["reason"] == 0x13 and idle > 1.0,
                     f"{label}: the sensor dropped the idle link", (gone, f"after {idle:.1f} s"))

        label = "second connection"
        await rig.wait_for(lambda r: r.get("event") == "advertising", 5)
        display = await Display.open(device, rig)
        refused = await att_error_of(display.peer.write_value(
            display.control.get_descriptor(GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR),
            b"\x02\x00", with_response=True))
        checks.check(refused == 0x0F, f"{label}: Control CCCD on the clear link: Insufficient Encryption",
                     refused)
        await authenticate(display, checks, key, True, label)
        await asyncio.wait_for(display.connection.encrypt(), 10)
        checks.check(display.connection.is_encrypted, f"{label}: re-encrypted from the bond")
        await subscribe_control(display)
        second = await glucose(display, rig, checks, label)
        checks.check(second["sequence"] > first["sequence"] and second["mgdl"] <= first["mgdl"],
                     f"{label}: a newer, lower reading", (first["sequence"], second["sequence"]))
        gap = await backfill(display, rig, checks, end + 1, second["sensorTime"], label)
        checks.check(len(gap) >= 1 and gap[0][0] == end + READING_INTERVAL and gap[-1][0] == second["sensorTime"],
                     f"{label}: the gap since the first connection backfills", [r[0] for r in gap])
        checks.check(count(rig, "jpake-done") == 1 and count(rig, "bonded") == 1,
                     f"{label}: no second J-PAKE or pairing")
        await display.connection.disconnect()


async def refusals(checks: Checks, directory: str) -> None:
    """Wrong code, a bond request without credentials, a bad signature."""
    arguments = ["--code", "1234", "--speed", str(SPEED), "--idle-drop", "0", "--readvertise-after", "0.2"]
    async with sensor_rig(checks, directory, "refusals", arguments) as (rig, credentials, path, device):
        label = "wrong code"
        display = await Display.open(device, rig)
        key = await jpake(display, rig, checks, "4321", label)
        matches, theirs = await challenge(display, key)
        checks.check(not matches, f"{label}: the sensor's 03 hash does not match our key")
        await display.write_auth(b"\x04" + g7_hash(key, theirs))
        checks.check(await display.reply() == b"\x05\x02\x01", f"{label}: a wrong 04 is refused 05 02 01")
        mismatch = await rig.wait_for(lambda r: r.get("event") == "challenge-mismatch")
        checks.check(mismatch is not None and mismatch["refusals"] == 1, f"{label}: rig counted the refusal",
                     mismatch)
        error = await att_error_of(display.write_auth(b"\x07"))
        checks.check(error == 0x80 and await rig.wait_for(lambda r: r.get("event") == "bond-refused") is not None,
                     f"{label}: a bond request without verified credentials is refused", error)
        await display.connection.disconnect()

        label = "bad signature"
        await rig.wait_for(lambda r: r.get("event") == "advertising", 5)
        display = await Display.open(device, rig)
        key = await jpake(display, rig, checks, "1234", label)
        await authenticate(display, checks, key, False, label)
        sensor_leaf = await certificates(display, rig, checks, credentials, label)
        checks.check(await display.reply() == b"\x0b\x00\x02\x00\x00", f"{label}: terminator acknowledged")
        await key_challenge(display, checks, sensor_leaf, g7_credentials.new_key(), label)
        rejected = await rig.wait_for(lambda r: r.get("event") == "signature-rejected")
        gone = await rig.wait_for(lambda r: r.get("event") == "disconnected" and count(rig, "disconnected") == 2)
        checks.check(rejected is not None and gone is not None, f"{label}: rejected and the link dropped")


async def other_ca(checks: Checks, directory: str) -> None:
    """Credentials from another root: the sensor rejects the chain and drops the link."""
    label = "other CA"
    arguments = ["--speed", str(SPEED), "--credentials-from-other-ca"]
    async with sensor_rig(checks, directory, label, arguments) as (rig, credentials, path, device):
        display = await Display.open(device, rig)
        key = await jpake(display, rig, checks, "1234", label)
        await authenticate(display, checks, key, False, label)
        await certificates(display, rig, checks, credentials, label)
        rejected = await rig.wait_for(lambda r: r.get("event") == "certificates-rejected")
        gone = await rig.wait_for(lambda r: r.get("event") == "disconnected")
        checks.check(rejected is not None and "root" in rejected["reason"] and gone is not None,
                     f"{label}: the chain is rejected and the link dropped", rejected)


async def states(checks: Checks, directory: str, name: str, age: str, state: int) -> None:
    """A ONE+ in warm-up or an expired Stelo: no glucose, its state."""
    label = f"{name} at {age}"
    arguments = ["--name", name, "--sensor-age", age, "--speed", "1"]
    async with sensor_rig(checks, directory, label, arguments) as (rig, credentials, path, device):
        advertisement = await scan_for(device, rig.info["address"], 10)
        checks.check(advertisement is not None and
                     advertisement.data.get(advertisement.data.COMPLETE_LOCAL_NAME) == name,
                     f"{label}: advertised as {name}")
        display = await Display.open(device, rig)
        await pair_fully(display, rig, checks, "1234", credentials, label)
        await subscribe_control(display)
        reading = await glucose(display, rig, checks, label)
        checks.check(reading["state"] == state and reading["mgdl"] is None and reading["trend"] is None,
                     f"{label}: state {state}, no glucose, no trend", reading)


class Quiet(Checks):
    """Checks that neither print nor count: the steps of a session the rig is meant to cut."""

    def check(self, ok: bool, what: str, detail: object = "") -> bool:
        return ok


async def drops(checks: Checks, directory: str) -> None:
    """--drop-at every step: each drops one link, once, in the order a display meets them, and
    the display that starts over each time gets through on the ninth connection (to a flat
    urgent low, in the grace period)."""
    quiet = Quiet()
    key: bytes | None = None
    label = "--drop-at"

    async def session(device: Device) -> dict:
        """What a display does on every connection: pair if it must, then glucose and backfill."""
        nonlocal key
        display = await Display.open(device, rig)
        if key is None:
            key = await jpake(display, rig, quiet, "1234", label)
        _, theirs = await challenge(display, key)
        await display.write_auth(b"\x04" + g7_hash(key, theirs))
        status = await display.reply()
        if status[2] == 1:
            await display.connection.encrypt()
        else:
            sensor_leaf = await certificates(display, rig, quiet, credentials, label)
            await display.reply()
            await key_challenge(display, quiet, sensor_leaf, credentials.key, label)
            for request in (b"\x06\x1e", b"\x07"):
                await display.write_auth(request)
                await display.reply()
            await display.connection.pair()
            await display.reply()
        await subscribe_control(display)
        reading = parse_glucose(await display.ask(b"\x4e"))
        await display.ask(b"\x59" + struct.pack("<II", reading["sensorTime"] - 3600, reading["sensorTime"]))
        await display.connection.disconnect()
        return reading

    arguments = ["--speed", str(SPEED), "--idle-drop", "0", "--readvertise-after", "0.1",
                 "--drop-at", ",".join(DROP_STEPS), "--sensor-age", "10d11h", "--glucose-mgdl", "50"]
    async with sensor_rig(checks, directory, label, arguments) as (rig, credentials, path, device):
        seen, completed = [], None
        for attempt in range(len(DROP_STEPS) + 1):
            before = count(rig, "disconnected")
            gone = asyncio.create_task(rig.wait_for(lambda r: count(rig, "disconnected") > before, 30))
            work = asyncio.create_task(session(device))
            await asyncio.wait({gone, work}, return_when=asyncio.FIRST_COMPLETED)
            # A link cut mid-request ends the session in an exception or, when Bumble cancels
            # the pending request, as a cancelled task.
            if work.done() and not work.cancelled() and work.exception() is None:
                completed = work.result()
            else:
                work.cancel()
            await gone
            dropped = [r["step"] for r in rig.lines if r.get("event") == "link-dropped-at"]
            seen.append(dropped[-1] if len(dropped) > len(seen) else "not dropped")
            if completed:
                break
            await rig.wait_for(lambda r: count(rig, "advertising") > attempt, 5)
        checks.check(seen[:-1] == list(DROP_STEPS) and seen[-1] == "not dropped",
                     f"{label}: each step dropped one link, in order", seen)
        served = completed and (completed["mgdl"], completed["trend"], completed["state"])
        checks.check(served == (50, 0, 6),
                     f"{label}: the display starting over got its glucose on connection {len(seen)}: "
                     "--glucose-mgdl 50 flat, still OK in the grace period (--sensor-age 10d11h)", completed)


def vectors(checks: Checks) -> None:
    """The test side's own crypto against the doc's vector and `cryptography`."""
    checks.check(g7_hash(bytes(range(16)), bytes.fromhex("0011223344556677")).hex() == "28b454bdf4d00600",
                 "AES challenge vector")
    scalar = g7_jpake.random_scalar()
    public = ec.derive_private_key(scalar, ec.SECP256R1()).public_key().public_numbers()
    checks.check(g7_jpake.multiply(scalar, g7_jpake.G) == (public.x, public.y),
                 "g7_jpake's P-256 multiplication agrees with cryptography's")
    checks.check(g7_jpake.secret_from_code("1155") == 0x31313535, "pairing code 1155 is the secret 0x31313535")


async def run(args) -> int:
    started = time.monotonic()
    checks = Checks()
    vectors(checks)
    with tempfile.TemporaryDirectory() as directory:
        await main_sensor(checks, directory)
        await refusals(checks, directory)
        await other_ca(checks, directory)
        await states(checks, directory, "DX02CD", "10m", 2)
        await states(checks, directory, "DX01EF", "10d13h", 24)
        await drops(checks, directory)
    print(f"took {time.monotonic() - started:.1f} s", flush=True)
    return checks.finish()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    run_main(run(parser.parse_args()), 90)


if __name__ == "__main__":
    main()
