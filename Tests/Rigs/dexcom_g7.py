#!/usr/bin/env python3
"""Simulated Dexcom G7 (ONE+, Stelo) sensor: an independent peer for Vigil's interop tests.

One process: a Bumble LocalLink with controller EXT (H4 over TCP, what Vigil connects to with
`--hci tcp:127.0.0.1:PORT`) and a peripheral that advertises 0xFEBC as `--name` (DXCMxx a G7,
DX02xx a ONE+, DX01xx a Stelo; GAP name "Dexcom"+xx) and serves the service
F8083532-849E-531C-C594-30F1F86A4EA5 (docs/protocols/dexcom-g7.md):

- Authentication F8083535 (write, notify/indicate): `0A k` J-PAKE rounds (the sensor's
  160-byte packet streamed on Certificate, then `0A 00 k`; ours read from Certificate writes);
  `02` AES challenge -> `03 hash ‖ challenge`, `04` -> `05 auth bond`; `0B i len` certificates
  (`0B 00 i len16` + ours on Certificate, theirs read by the announced length; `0B 02 00000000`
  ends them and the chain is verified against the rig's test root); `0C` key challenge (`0C 00 ‖
  16 bytes` + our 64-byte signature; theirs verified with their leaf's key); `06` keep-alive,
  `07` bond request, then LE Secure Connections Just Works and `08 00`.
- Certificate F8083538 (write, notify): the bulk payloads, at most 20 bytes a notification.
- Control F8083534 (write, notify/indicate; its CCCD and its writes need an encrypted link):
  `4E` glucose, `59` backfill (records on Backfill, then `59 00`), `52`/`4A` versions, `34`
  calibration, `32` calibration bounds. No CRCs.
- Backfill F8083536 (read, write, notify): 9-byte records, two per notification.

J-PAKE is the test side's own (g7_jpake.py), AES, ECDSA and X.509 are `cryptography`'s: nothing
is shared with Vigil's implementation. The credentials Vigil needs are made at start
(g7_credentials.py) and written to `--credentials-out`.

Sensor time (seconds since activation) starts at `--sensor-age` and runs `--speed` times real
time; a reading exists every 300 sensor seconds: warm-up (state 2, no glucose) before
`--warmup`, OK (6) until the session's 10 days + 12 hours, expired (24, no glucose) after. The
glucose falls from 160 mg/dL at rig start by 1 mg/dL per sensor minute, floored at 40
(`--glucose-mgdl N`: a flat line). The sensor drops a link idle for `--idle-drop` real seconds
and advertises again `--readvertise-after` real seconds after a link ends.

stdout: `{"rig":...}` once, `READY <port>`, then NDJSON lines, e.g.
  {"sent":"glucose","sensorTime":..,"mgdl":..,"trend":..,"state":6,"hex":..}
  {"sent":"backfill","start":..,"end":..,"records":[[t,mgdl,state,trend],..]}
  {"event":"jpake-done"|"challenge-ok"|"challenge-mismatch"|"certificates-accepted"|
           "certificates-rejected"|"signature-ok"|"signature-rejected"|"bonded"|"idle-drop"|...}

Example: dexcom_g7.py --port 0 --name DXCMAB --code 1234 --speed 60 --credentials-out g7.pem
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import struct
import time
from dataclasses import dataclass, field
from typing import Awaitable, Callable

from bumble import att, gatt
from bumble.core import UUID
from bumble.device import Connection, Device
from bumble.pairing import PairingConfig, PairingDelegate
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

import dexcom_common
import g7_credentials
import g7_jpake
import rig_common
from dexcom_common import ATT_INSUFFICIENT_AUTHENTICATION, AUTHENTICATION, BACKFILL, CGM_SERVICE, CONTROL
from rig_common import emit

CERTIFICATE = "F8083538-849E-531C-C594-30F1F86A4EA5"
ATT_APPLICATION_ERROR = 0x80
READING_INTERVAL = 300  # sensor seconds between readings
SESSION_LENGTH = 907_200  # 10 days + 12 hours of grace
CHUNK = 20  # bytes per Certificate notification
STATE_WARMUP, STATE_OK, STATE_EXPIRED = 2, 6, 24
NO_GLUCOSE, NO_TREND = 0xFFFF, 0x7F
PREFIXES = {"DXCM": "g7", "DX02": "one+", "DX01": "stelo"}
# --drop-at: where the link can be dropped, once each.
DROP_STEPS = ("after-connect", "after-jpake-request", "after-auth-request", "after-challenge",
              "after-certificates", "after-bond-request", "mid-glucose", "mid-backfill")
# Transmitter Version, the doc's vector: firmware 44.192.105.72, serial 0xB3BC553EC0.
TRANSMITTER_VERSION = bytes.fromhex("4a002cc069489c37000031474141c03e55bcb300")


def g7_hash(key: bytes, eight: bytes) -> bytes:
    """First 8 bytes of AES-128-ECB(key, x ‖ x) (docs/protocols/dexcom-g7.md §AES challenge)."""
    encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return (encryptor.update(eight + eight) + encryptor.finalize())[:8]


def duration(text: str) -> int:
    """Seconds in `10d11h`, `27m`, `2h`, `90s` or a bare number of seconds."""
    if text.isdigit():
        return int(text)
    parts = re.findall(r"(\d+)([dhms])", text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise argparse.ArgumentTypeError(f"not a duration like 10d11h, 27m or 90: {text!r}")
    return sum(int(n) * {"d": 86400, "h": 3600, "m": 60, "s": 1}[u] for n, u in parts)


@dataclass
class Reading:
    """One measurement: sequence = index of the 300-second slot since activation."""
    sequence: int
    time: int
    state: int
    mgdl: int | None
    trend: int | None  # tenths of mg/dL per minute
    predicted: int | None

    @property
    def flags(self) -> int:
        # As in the doc's vectors: 0x0F with glucose, 0x01 in warm-up, 0x0E expired; never
        # 0x10 (display only): the rig is never calibrated into a jump.
        return {STATE_OK: 0x0F, STATE_WARMUP: 0x01}.get(self.state, 0x0E)

    def record(self) -> list:
        return [self.time, self.mgdl, self.state, self.trend]

    def backfill_bytes(self) -> bytes:
        return (struct.pack("<I", self.time)[:3] + b"\x00"
                + struct.pack("<HBBb", NO_GLUCOSE if self.mgdl is None else self.mgdl, self.state, self.flags,
                              NO_TREND if self.trend is None else self.trend))


@dataclass
class Link:
    """What the sensor knows about one connection."""
    connection: Connection
    peer: str
    last_activity: float = field(default_factory=time.monotonic)
    outbox: asyncio.Queue = field(default_factory=asyncio.Queue)
    tasks: list[asyncio.Task] = field(default_factory=list)
    jpake: g7_jpake.Party | None = None
    # What the next Certificate writes carry: (kind, index, length), kind jpake|certificate|signature.
    expecting: tuple[str, int, int] | None = None
    inbound: bytearray = field(default_factory=bytearray)
    display_challenge: bytes = b""
    sensor_challenge: bytes = b""
    authenticated: bool = False
    certificates: dict[int, bytes] = field(default_factory=dict)
    leaf: object = None  # the display's leaf certificate, once its chain verified
    key_challenge: bytes = b""
    signature_ok: bool = False
    bond_allowed: bool = False
    dropping: bool = False


class Sensor:
    """The sensor: one session key (the last J-PAKE's), its bonds, its test credentials, and a
    `Link` per connection."""

    def __init__(self, args: argparse.Namespace, rig: rig_common.Rig) -> None:
        self.args = args
        self.rig = rig
        self.name = args.name
        self.started = time.monotonic()
        self.key: bytes | None = None  # the session key of the last J-PAKE
        self.refusals = 0
        self.links: dict[int, Link] = {}
        self.readvertising: asyncio.Task | None = None
        self.drops_pending = [step for step in args.drop_at.split(",") if step]

        self.root, self.root_key = g7_credentials.make_root()
        if args.credentials_from_other_ca:
            other_root, other_key = g7_credentials.make_root()
            self.display = g7_credentials.make_display_chain(other_root, other_key)
        else:
            self.display = g7_credentials.make_display_chain(self.root, self.root_key)
        if args.credentials_out:
            self.display.write(args.credentials_out)
        # The sensor's own certificates: a self-made CA and the sensor's leaf, whose key signs.
        sensor_ca_key, self.sensor_key = g7_credentials.new_key(), g7_credentials.new_key()
        sensor_ca = g7_credentials.make_certificate("Vigil Test G7 Sensor CA", sensor_ca_key, None,
                                                    sensor_ca_key, ca=True)
        sensor_leaf = g7_credentials.make_certificate("Dexcom" + self.name[-2:], self.sensor_key,
                                                      sensor_ca, sensor_ca_key, ca=False)
        self.sensor_certificates = [g7_credentials.der(c) for c in (sensor_ca, sensor_leaf)]

        # Advertised DXCMxx, read as "Dexcom"+xx once connected (the GAP name).
        self.device = dexcom_common.make_device(rig.host, self.name, "Dexcom" + self.name[-2:], args.address)
        self.device.pairing_config_factory = self.pairing_config
        self.device.on(Device.EVENT_CONNECTION, self.on_connection)
        self.build_gatt()
        self.watch_central_traffic()

    # -- sensor time and the glucose curve -----------------------------------------------------
    def sensor_now(self) -> int:
        return self.args.sensor_age + int((time.monotonic() - self.started) * self.args.speed)

    def curve(self, t: int) -> int:
        if self.args.glucose_mgdl is not None:
            return self.args.glucose_mgdl
        return max(40, min(400, round(160 - (t - self.args.sensor_age) / 60)))

    def reading(self, sequence: int) -> Reading:
        t = sequence * READING_INTERVAL
        if t < self.args.warmup:
            return Reading(sequence, t, STATE_WARMUP, None, None, None)
        if t > SESSION_LENGTH:
            return Reading(sequence, t, STATE_EXPIRED, None, None, None)
        mgdl = self.curve(t)
        trend = max(-127, min(126, round((mgdl - self.curve(t - READING_INTERVAL)) * 10 / 5)))
        predicted = max(40, min(400, mgdl + round(trend * 15 / 10)))
        return Reading(sequence, t, STATE_OK, mgdl, trend, predicted)

    def readings(self, start: int, end: int) -> list[Reading]:
        """Every reading that exists with start <= time <= end."""
        first = max(1, -(-start // READING_INTERVAL))
        last = min(end, self.sensor_now()) // READING_INTERVAL
        return [self.reading(k) for k in range(first, last + 1)]

    # -- GATT ----------------------------------------------------------------------------------
    def build_gatt(self) -> None:
        props = gatt.Characteristic.Properties
        self.control = gatt.Characteristic(
            UUID(CONTROL), props.WRITE | props.NOTIFY | props.INDICATE, att.Attribute.WRITEABLE,
            gatt.CharacteristicValue(write=self.on_control_write))
        self.authentication = gatt.Characteristic(
            UUID(AUTHENTICATION), props.WRITE | props.NOTIFY | props.INDICATE, att.Attribute.WRITEABLE,
            gatt.CharacteristicValue(write=self.on_auth_write))
        self.backfill = gatt.Characteristic(
            UUID(BACKFILL), props.READ | props.WRITE | props.NOTIFY,
            att.Attribute.READABLE | att.Attribute.WRITEABLE, b"")
        self.certificate = gatt.Characteristic(
            UUID(CERTIFICATE), props.WRITE | props.NOTIFY, att.Attribute.WRITEABLE,
            gatt.CharacteristicValue(write=self.on_certificate_write))
        # Control's CCCD and its writes need an encrypted link, as the G6's.
        self.control.descriptors = [dexcom_common.protected_cccd(self.device, self.control)]
        self.device.add_services([gatt.Service(UUID(CGM_SERVICE), [
            self.control, self.authentication, self.backfill, self.certificate])])
        dexcom_common.log_subscriptions([(self.control, "control"), (self.authentication, "authentication"),
                                         (self.backfill, "backfill"), (self.certificate, "certificate")])

    def watch_central_traffic(self) -> None:
        """Any ATT or SMP PDU from the central is activity: the idle timer restarts on it."""
        server, smp = self.device.gatt_server, self.device.smp_manager
        on_gatt, on_smp = server.on_gatt_pdu, smp.on_smp_pdu

        def gatt_pdu(bearer, pdu) -> None:
            self.touch(bearer)
            on_gatt(bearer, pdu)

        def smp_pdu(connection, pdu) -> None:
            self.touch(connection)
            on_smp(connection, pdu)

        server.on_gatt_pdu = gatt_pdu
        smp.on_smp_pdu = smp_pdu

    def touch(self, connection) -> None:
        link = self.links.get(getattr(connection, "handle", -1))
        if link is not None:
            link.last_activity = time.monotonic()

    def cccd_bits(self, connection: Connection, characteristic: gatt.Characteristic) -> int:
        subscribers = self.device.gatt_server.subscribers
        cccd = subscribers.get(connection, {}).get(characteristic.handle) \
            or subscribers.get(connection.handle, {}).get(characteristic.handle)
        return cccd[0] if cccd else 0

    async def send(self, link: Link, characteristic: gatt.Characteristic, value: bytes, label: str) -> bool:
        """Indicates when the central asked for indications, else notifies; false when it
        subscribed to neither."""
        bits = self.cccd_bits(link.connection, characteristic)
        if bits & 0x02:
            await self.device.indicate_subscriber(link.connection, characteristic, value)
        elif bits & 0x01:
            await self.device.notify_subscriber(link.connection, characteristic, value)
        else:
            emit({"event": "not-subscribed", "characteristic": label, "hex": value.hex()})
            return False
        return True

    async def stream(self, link: Link, payload: bytes) -> None:
        """A bulk payload on Certificate, in notifications of at most 20 bytes, no framing."""
        for offset in range(0, len(payload), CHUNK):
            if not await self.send(link, self.certificate, payload[offset:offset + CHUNK], "certificate"):
                return

    def later(self, link: Link, job: Callable[[], Awaitable[None]]) -> None:
        """Queues work that sends, after the Write Response, in the order written."""
        link.outbox.put_nowait(job)

    def reply_auth(self, link: Link, value: bytes) -> None:
        async def job() -> None:
            if await self.send(link, self.authentication, value, "authentication"):
                emit({"sent": "authentication", "hex": value.hex()})
        self.later(link, job)

    def refuse(self, event: str, **fields) -> None:
        emit({"event": event, **fields})
        raise att.ATT_Error(error_code=ATT_APPLICATION_ERROR)

    # -- authentication ------------------------------------------------------------------------
    def on_auth_write(self, connection: Connection, value: bytes) -> None:
        link = self.links[connection.handle]
        emit({"received": "authentication", "hex": value.hex()})
        opcode = value[0] if value else None
        step = {0x0A: "after-jpake-request", 0x02: "after-auth-request", 0x04: "after-challenge",
                0x07: "after-bond-request"}.get(opcode)
        if step and self.drop_here(link, step):
            return
        if opcode == 0x0A and len(value) == 2 and value[1] <= 2:
            self.jpake_round(link, value[1])
        elif opcode == 0x02 and len(value) == 10:
            self.auth_challenge(link, value)
        elif opcode == 0x04 and len(value) == 9:
            self.auth_answer(link, value[1:9])
        elif opcode == 0x0B and len(value) == 6:
            self.certificate_request(link, value[1], struct.unpack("<I", value[2:6])[0])
        elif opcode == 0x0C and len(value) == 17:
            self.key_challenge(link, value[1:17])
        elif opcode == 0x06 and len(value) == 2:
            emit({"event": "keep-alive", "seconds": value[1]})
            self.reply_auth(link, b"\x06\x00")
        elif opcode == 0x07 and len(value) == 1:
            if not link.signature_ok:
                self.refuse("bond-refused", reason="no verified credentials on this link")
            link.bond_allowed = True
            emit({"event": "bond-request"})
            self.reply_auth(link, b"\x07\x00")
        else:
            self.refuse("unknown-authentication", hex=value.hex())

    def jpake_round(self, link: Link, k: int) -> None:
        if k == 0:
            link.jpake = g7_jpake.Party(self.args.code, g7_jpake.SENSOR_PARTY, g7_jpake.CLIENT_PARTY)
        elif link.jpake is None or any(r not in link.jpake.peer_points for r in range(k)):
            self.refuse("out-of-order", hex=f"0a{k:02x}", reason="earlier J-PAKE rounds incomplete")
        packet = link.jpake.packet(k)
        link.expecting, link.inbound = ("jpake", k, g7_jpake.PACKET_LENGTH), bytearray()

        async def job() -> None:
            # The packet first, then the acknowledgement: a real sensor may start streaming
            # before its acknowledgement arrives (docs/protocols/dexcom-g7.md §EC J-PAKE).
            await self.stream(link, packet)
            emit({"sent": "jpake", "round": k, "hex": packet.hex()})
            if await self.send(link, self.authentication, bytes([0x0A, 0x00, k]), "authentication"):
                emit({"sent": "authentication", "hex": bytes([0x0A, 0x00, k]).hex()})
        self.later(link, job)

    def jpake_packet(self, link: Link, k: int, packet: bytes) -> None:
        party = link.jpake
        assert party is not None
        try:
            valid = party.receive(k, packet)
        except ValueError as error:
            emit({"event": "jpake-bad-packet", "round": k, "error": str(error)})
            self.drop(link, "jpake-bad-packet")
            return
        record = {"event": "jpake-packet", "round": k, "proofValid": valid}
        if k == 2:
            record["fixedRandomizer"] = party.peer_used_randomizer(packet, g7_jpake.ROUND3_RANDOMIZER)
        emit(record)
        if k == 2:
            self.key = party.session_key()
            emit({"event": "jpake-done", "key": self.key.hex()})

    def auth_challenge(self, link: Link, value: bytes) -> None:
        link.authenticated = False
        if self.key is None:
            emit({"event": "no-key"})
            self.reply_auth(link, b"\x05\x02\x03")  # refused: no key for this display
            return
        link.display_challenge = value[1:9]
        link.sensor_challenge = os.urandom(8)
        emit({"event": "auth-request", "display": value[9]})
        self.reply_auth(link, b"\x03" + g7_hash(self.key, link.display_challenge) + link.sensor_challenge)

    def auth_answer(self, link: Link, answer: bytes) -> None:
        if not link.sensor_challenge or self.key is None:
            self.refuse("out-of-order", hex="04" + answer.hex(), reason="no challenge outstanding")
        bonded = dexcom_common.bonded(self.device, link.connection)
        if answer == g7_hash(self.key, link.sensor_challenge):
            link.authenticated = True
            self.refusals = 0
            emit({"event": "challenge-ok", "bonded": bonded})
            self.reply_auth(link, bytes([0x05, 0x01, 0x01 if bonded else 0x02]))
        else:
            self.refusals += 1
            emit({"event": "challenge-mismatch", "refusals": self.refusals})
            self.reply_auth(link, b"\x05\x02\x01")  # refused: key mismatch
        link.sensor_challenge = b""

    def certificate_request(self, link: Link, index: int, length: int) -> None:
        if not link.authenticated:
            self.refuse("out-of-order", hex=f"0b{index:02x}", reason="not authenticated")
        if index == 2 and length == 0:
            if self.drop_here(link, "after-certificates"):
                return
            problem, leaf = g7_credentials.chain_problem(self.root, link.certificates)
            if problem is not None:
                emit({"event": "certificates-rejected", "reason": problem})
                self.drop(link, "certificates-rejected")
                return
            link.leaf = leaf
            emit({"event": "certificates-accepted"})
            self.reply_auth(link, b"\x0b\x00\x02\x00\x00")
            return
        if index > 1 or not 0 < length <= 4096:
            self.refuse("bad-certificate-request", index=index, length=length)
        own = self.sensor_certificates[index]
        link.expecting, link.inbound = ("certificate", index, length), bytearray()

        async def job() -> None:
            ack = bytes([0x0B, 0x00, index]) + struct.pack("<H", len(own))
            if await self.send(link, self.authentication, ack, "authentication"):
                emit({"sent": "authentication", "hex": ack.hex()})
            await self.stream(link, own)
            emit({"sent": "certificate", "index": index, "length": len(own)})
        self.later(link, job)

    def key_challenge(self, link: Link, display_bytes: bytes) -> None:
        if link.leaf is None:
            self.refuse("out-of-order", hex="0c" + display_bytes.hex(), reason="no accepted certificates")
        link.key_challenge = os.urandom(16)
        link.expecting, link.inbound = ("signature", 0, 64), bytearray()
        ours = g7_credentials.sign_raw(self.sensor_key, display_bytes)

        async def job() -> None:
            ack = b"\x0c\x00" + link.key_challenge
            if await self.send(link, self.authentication, ack, "authentication"):
                emit({"sent": "authentication", "hex": ack.hex()})
            await self.stream(link, ours)
            emit({"sent": "signature", "hex": ours.hex()})
        self.later(link, job)

    def on_certificate_write(self, connection: Connection, value: bytes) -> None:
        link = self.links[connection.handle]
        if link.expecting is None:
            self.refuse("unexpected-certificate-write", hex=value.hex())
        kind, index, length = link.expecting
        link.inbound += value
        if len(link.inbound) < length:
            return
        payload, extra = bytes(link.inbound[:length]), len(link.inbound) - length
        link.expecting, link.inbound = None, bytearray()
        emit({"received": "certificate", "kind": kind, "index": index, "length": length,
              **({"extraBytes": extra} if extra else {})})
        if kind == "jpake":
            self.jpake_packet(link, index, payload)
        elif kind == "certificate":
            link.certificates[index] = payload
        elif g7_credentials.verify_raw(link.leaf, link.key_challenge, payload):
            link.signature_ok = True
            emit({"event": "signature-ok"})
        else:
            emit({"event": "signature-rejected"})
            self.drop(link, "signature-rejected")

    def pairing_config(self, connection: Connection) -> PairingConfig:
        sensor = self

        class Delegate(PairingDelegate):
            async def accept(self) -> bool:
                link = sensor.links.get(connection.handle)
                allowed = link is not None and link.bond_allowed
                if not allowed:
                    emit({"event": "pairing-refused", "reason": "no bond request after verified credentials"})
                return allowed

        return dexcom_common.just_works(Delegate(io_capability=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT))

    # -- control -------------------------------------------------------------------------------
    def on_control_write(self, connection: Connection, value: bytes) -> None:
        link = self.links[connection.handle]
        emit({"received": "control", "hex": value.hex()})
        code = dexcom_common.encryption_refusal(self.device, connection)
        if code is not None:
            emit({"event": "control-refused", "attError": code})
            raise att.ATT_Error(error_code=code)
        if not link.authenticated:
            emit({"event": "control-refused", "attError": ATT_INSUFFICIENT_AUTHENTICATION})
            raise att.ATT_Error(error_code=ATT_INSUFFICIENT_AUTHENTICATION)
        if value[:1] == b"\x4e" and self.drop_here(link, "mid-glucose"):
            return
        self.later(link, lambda: self.answer(link, value))

    async def answer(self, link: Link, value: bytes) -> None:
        opcode, now = value[0], self.sensor_now()
        if opcode == 0x4E and len(value) == 1:
            reading = self.reading(now // READING_INTERVAL)
            reply = struct.pack("<BBIHHHHBbHB", 0x4E, 0, now, reading.sequence, 0x0100, now - reading.time,
                                NO_GLUCOSE if reading.mgdl is None else reading.mgdl, reading.state,
                                NO_TREND if reading.trend is None else reading.trend,
                                NO_GLUCOSE if reading.predicted is None else reading.predicted, reading.flags)
            await self.reply_control(link, reply, {
                "sent": "glucose", "sensorTime": reading.time, "messageTime": now, "sequence": reading.sequence,
                "mgdl": reading.mgdl, "trend": reading.trend, "predicted": reading.predicted,
                "state": reading.state})
        elif opcode == 0x59 and len(value) == 9:
            start, end = struct.unpack("<II", value[1:9])
            await self.send_backfill(link, start, end)
        elif opcode == 0x52 and len(value) == 1:
            reply = struct.pack("<BBIHIBH", 0x52, 0, SESSION_LENGTH, self.args.warmup, 67_371_520, 0xFF, 12)
            await self.reply_control(link, reply, {"sent": "extended-version", "sessionLength": SESSION_LENGTH,
                                                   "warmup": self.args.warmup})
        elif opcode == 0x4A and len(value) == 1:
            await self.reply_control(link, TRANSMITTER_VERSION, {
                "sent": "transmitter-version", "firmware": "44.192.105.72", "serial": 0xB3BC553EC0})
        elif opcode == 0x34 and len(value) == 7:
            mgdl, when = struct.unpack("<HI", value[1:7])
            emit({"received": "calibration", "mgdl": mgdl, "sensorTime": when})
            await self.reply_control(link, b"\x34\x00\x01\x00", {"sent": "calibration-result", "status": 1})
        elif opcode == 0x32 and len(value) == 1:
            # Twenty bytes whose layout nobody has published beyond the opcode and status: fixed.
            await self.reply_control(link, bytes.fromhex("32002800900128009001ae0080000a000000ffff"),
                                     {"sent": "calibration-bounds"})
        else:
            emit({"event": "unknown-control", "hex": value.hex()})

    async def reply_control(self, link: Link, value: bytes, record: dict) -> None:
        if await self.send(link, self.control, value, "control"):
            emit({**record, "hex": value.hex()})

    async def send_backfill(self, link: Link, start: int, end: int) -> None:
        readings = self.readings(start, end)
        payloads = [b"".join(r.backfill_bytes() for r in readings[i:i + 2]) for i in range(0, len(readings), 2)]
        if len(payloads) > 1 and "mid-backfill" in self.drops_pending:
            for payload in payloads[:len(payloads) // 2]:
                await self.send(link, self.backfill, payload, "backfill")
            self.drop_here(link, "mid-backfill", notifications=len(payloads) // 2)
            return
        for payload in payloads:
            await self.send(link, self.backfill, payload, "backfill")
        await self.reply_control(link, b"\x59\x00", {"sent": "backfill", "start": start, "end": end,
                                                     "records": [r.record() for r in readings],
                                                     "notifications": len(payloads)})

    # -- links ---------------------------------------------------------------------------------
    def drop_here(self, link: Link, step: str, **fields) -> bool:
        """--drop-at: drops the link the first time the exchange reaches `step`; true when it did."""
        if step not in self.drops_pending:
            return False
        self.drops_pending.remove(step)
        emit({"event": "link-dropped-at", "step": step, **fields})
        self.drop(link, step)
        return True

    def drop(self, link: Link, why: str) -> None:
        """The sensor ends the link (reason 0x13 from our side), after what is queued is sent."""
        if link.dropping:
            return
        link.dropping = True

        emit({"event": "link-dropped-by-sensor", "why": why})
        asyncio.get_running_loop().create_task(dexcom_common.disconnect(link.connection))

    async def run_outbox(self, link: Link) -> None:
        while True:
            job = await link.outbox.get()
            try:
                await job()
            except Exception as error:  # a link that went mid-send must not stop the next one
                emit({"event": "send-failed", "error": repr(error)})

    async def watch_idle(self, link: Link) -> None:
        idle = self.args.idle_drop
        while True:
            remaining = link.last_activity + idle - time.monotonic()
            if remaining <= 0:
                emit({"event": "idle-drop", "seconds": idle})
                self.drop(link, "idle")
                return
            await asyncio.sleep(remaining)

    def on_connection(self, connection: Connection) -> None:
        peer = str(connection.peer_address)
        link = Link(connection, peer)
        self.links[connection.handle] = link
        loop = asyncio.get_running_loop()
        link.tasks.append(loop.create_task(self.run_outbox(link)))
        if self.args.idle_drop > 0:
            link.tasks.append(loop.create_task(self.watch_idle(link)))
        emit({"event": "connected", "peer": peer, "handle": connection.handle, "sensorTime": self.sensor_now(),
              "bonded": dexcom_common.bonded(self.device, connection)})
        if "after-connect" in self.drops_pending:
            self.drop_here(link, "after-connect")

        def on_disconnection(reason) -> None:
            for task in link.tasks:
                task.cancel()
            self.links.pop(connection.handle, None)
            emit({"event": "disconnected", "peer": peer, "reason": int(reason), "sensorTime": self.sensor_now()})
            if not self.rig.stopping.is_set():  # links dropped while the rig stops need no cycle
                self.readvertising = asyncio.get_running_loop().create_task(dexcom_common.readvertise(
                    self.device, self.args.readvertise_after, lambda: {"sensorTime": self.sensor_now()}))

        def on_pairing() -> None:
            async def job() -> None:
                if await self.send(link, self.authentication, b"\x08\x00", "authentication"):
                    emit({"sent": "authentication", "hex": "0800"})
                emit({"event": "bonded", "peer": peer})
            self.later(link, job)

        connection.on(connection.EVENT_DISCONNECTION, on_disconnection)
        dexcom_common.log_security(connection, peer, on_pairing=on_pairing,
                                   on_encryption=lambda: self.touch(connection))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rig_common.add_common_arguments(parser)
    parser.add_argument("--name", default="DXCMAB",
                        help="advertised name: DXCM (G7), DX02 (ONE+) or DX01 (Stelo) + 2 characters")
    parser.add_argument("--code", default="1234", help="the 4-digit pairing code")
    parser.add_argument("--address", default="C3:DE:C7:00:12:AB", help="random static address")
    parser.add_argument("--credentials-out", metavar="PATH",
                        help="write the display credentials (PEM: intermediate, leaf, PKCS#8 key) here, mode 0600")
    parser.add_argument("--credentials-from-other-ca", action="store_true",
                        help="the written chain comes from another root: the sensor rejects it")
    parser.add_argument("--sensor-age", type=duration, default=duration("2h"),
                        help="sensor time at rig start: 2h, 10d11h (grace), 10d13h (expired), ...")
    parser.add_argument("--warmup", type=duration, default=duration("27m"), help="warm-up length")
    parser.add_argument("--speed", type=float, default=1.0, help="sensor seconds per real second")
    parser.add_argument("--glucose-mgdl", type=int, help="serve this glucose for every reading (flat trend)")
    parser.add_argument("--idle-drop", type=float, default=4.0,
                        help="real seconds without traffic from the central before the sensor drops "
                             "the link; 0 never")
    parser.add_argument("--readvertise-after", type=float, default=5.0,
                        help="real seconds without advertising after a link ends")
    dexcom_common.add_drop_at(parser, DROP_STEPS, "pairing and data")
    args = parser.parse_args()
    if len(args.name) != 6 or args.name[:4] not in PREFIXES:
        parser.error("--name must be DXCM, DX02 or DX01 followed by 2 characters")
    if len(args.code) != 4 or not args.code.isdigit():
        parser.error("--code must be 4 digits")
    if args.glucose_mgdl is not None and not 0 < args.glucose_mgdl < 0x1000:
        parser.error("--glucose-mgdl must fit 12 bits")
    await dexcom_common.serve(args, "dexcom-g7", lambda rig: Sensor(args, rig), lambda sensor: {
        "address": args.address, "addressType": "random", "name": sensor.name,
        "model": PREFIXES[args.name[:4]], "gapName": "Dexcom" + args.name[-2:], "code": args.code,
        "credentials": args.credentials_out, "credentialsFromOtherCa": args.credentials_from_other_ca,
        "sensorAge": args.sensor_age, "warmup": args.warmup, "sessionLength": SESSION_LENGTH,
        "speed": args.speed, "idleDrop": args.idle_drop})


if __name__ == "__main__":
    asyncio.run(main())
