#!/usr/bin/env python3
"""Simulated Dexcom G5/G6 transmitter: an independent peer for Vigil's interop tests.

One process: a Bumble LocalLink with controller EXT (H4 over TCP, what Vigil connects to with
`--hci tcp:127.0.0.1:PORT`) and a peripheral that advertises 0xFEBC as "Dexcom" + the last two
characters of `--id` and serves the CGM service F8083532-849E-531C-C594-30F1F86A4EA5
(docs/protocols/dexcom-g5-g6.md):

- Authentication F8083535 (read/write/indicate): AuthRequestTx 0x01 -> AuthChallengeRx 0x03
  with hash(token) and a random challenge; AuthChallengeTx 0x04 -> AuthStatusRx 0x05
  (authenticated if the hash matches; bonded if this central holds a bond with us);
  KeepAlive 0x06, BondRequest 0x07 (the central then pairs: LE Secure Connections Just Works).
  hash(x) = first 8 bytes of AES-128-ECB(key, x||x), key = ASCII "00"+ID+"00"+ID, computed
  here with the `cryptography` package, independently of Vigil's swift-crypto.
- Control F8083534 (write/indicate; its CCCD needs an encrypted link, as a bond is required):
  0x24 time, 0x30/0x4E glucose, 0x2E sensor, 0x32 calibration data, 0x22 battery, 0x20/0x4A
  version, 0x50 backfill (frames on Backfill, then 0x51 on Control), 0x09 disconnect.
  Every reply carries CRC-16/XMODEM, little-endian.
- Backfill F8083536 (read/write/notify): 20-byte frames `index, 0x00, payload`.

Dex time runs `--speed` times faster than real time; a reading exists every 300 dex seconds from
the session start on a smooth curve. After a Disconnect (0x09) the rig re-advertises after
`--readvertise-after` real seconds, so a following session sees a gap to backfill.

stdout: `{"rig":...}` once, `READY <port>`, then NDJSON lines, e.g.
  {"sent":"glucose","dexTime":..,"mgdl":..,"trend":..,"state":6,"hex":..}
  {"sent":"backfill","start":..,"end":..,"records":[[t,mgdl,state,trend],..],"frames":N}
  {"event":"authenticated"|"auth-failed"|"bond-request"|"connected"|"disconnected"|"paired"|...}

Fault switches, all off by default: `--bad-crc`, `--truncate-backfill`, `--answer-as ID`,
`--glucose-mgdl N` (a flat line, e.g. 50: urgent low) and `--drop-at STEP,...` (the link dropped
once at each handshake step, see DROP_STEPS; used by hostile_peers.py).

Example: dexcom_g6.py --port 0 --id 8112AB --speed 60 --readvertise-after 20
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import struct
import time

from bumble import att, gatt
from bumble.core import UUID
from bumble.device import Connection, Device
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

import dexcom_common
import rig_common
from dexcom_common import ATT_INSUFFICIENT_AUTHENTICATION, AUTHENTICATION, BACKFILL, CGM_SERVICE, CONTROL
from rig_common import emit

COMMUNICATION = "F8083533-849E-531C-C594-30F1F86A4EA5"
READING_INTERVAL = 300  # dex seconds between readings
# --drop-at: where in the handshake the link can be dropped (used by hostile_peers.py).
DROP_STEPS = ("after-connect", "after-auth-request", "after-challenge", "after-bond-request",
              "mid-glucose", "mid-backfill")


def crc16_xmodem(data: bytes) -> int:
    """CRC-16/XMODEM: poly 0x1021, init 0, not reflected, no final XOR.

    docs/protocols/dexcom-g5-g6.md §Framing and CRC.
    """
    crc = 0
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else crc << 1
            crc &= 0xFFFF
    return crc


def with_crc(body: bytes) -> bytes:
    return body + struct.pack("<H", crc16_xmodem(body))


def dexcom_hash(transmitter_id: str, eight: bytes) -> bytes:
    key = ("00" + transmitter_id + "00" + transmitter_id).encode("ascii")
    encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return (encryptor.update(eight + eight) + encryptor.finalize())[:8]


class Transmitter:
    def __init__(self, args: argparse.Namespace, rig: rig_common.Rig) -> None:
        self.args = args
        self.rig = rig
        self.id = args.id.upper()
        self.name = "Dexcom" + self.id[-2:]
        self.started = time.monotonic()
        self.challenge = b""
        self.token = b""
        self.auth_value = b""
        self.authenticated: set[int] = set()  # connection handles
        self.send_lock = asyncio.Lock()
        self.readvertising: asyncio.Task | None = None
        # --drop-at: handshake steps where the link is dropped, each once, in any order met.
        self.drops_pending = [step for step in args.drop_at.split(",") if step]
        # --ignore: Control opcodes this transmitter never answers (as one seen with 0x32).
        self.ignored = {int(op, 16) for op in args.ignore.split(",") if op}

        self.device = dexcom_common.make_device(rig.host, self.name, self.name, args.address)
        self.device.on(Device.EVENT_CONNECTION, self.on_connection)
        self.build_gatt()

    # -- dex time and the glucose curve --------------------------------------------------------
    def dex_now(self) -> int:
        return self.args.transmitter_age + int((time.monotonic() - self.started) * self.args.speed)

    def session_start(self) -> int:
        return self.args.transmitter_age - self.args.session_age_minutes * 60

    def reading_times(self, start: int, end: int) -> list[int]:
        first = self.session_start()
        k0 = max(0, math.ceil((start - first) / READING_INTERVAL))
        times = []
        t = first + k0 * READING_INTERVAL
        while t <= min(end, self.dex_now()):
            times.append(t)
            t += READING_INTERVAL
        return times

    def glucose_at(self, t: int) -> tuple[int, int]:
        """(mg/dL, trend in 0.1 mg/dL/min) for the reading at dex time t."""
        def value(x: int) -> int:
            k = (x - self.session_start()) / READING_INTERVAL
            return int(round(130 + 60 * math.sin(k / 9)))
        if self.args.glucose_mgdl is not None:
            return self.args.glucose_mgdl, 0  # --glucose-mgdl: a flat line, e.g. an urgent low
        mgdl = value(t)
        trend = int(round((mgdl - value(t - READING_INTERVAL)) / 5 * 10))
        return mgdl, max(-127, min(126, trend))

    def latest_reading_time(self) -> int:
        times = self.reading_times(self.dex_now() - READING_INTERVAL, self.dex_now())
        return times[-1] if times else self.session_start()

    # -- GATT ----------------------------------------------------------------------------------
    def build_gatt(self) -> None:
        props = gatt.Characteristic.Properties
        rw = att.Attribute.READABLE | att.Attribute.WRITEABLE
        self.communication = gatt.Characteristic(UUID(COMMUNICATION), props.READ | props.NOTIFY,
                                                 att.Attribute.READABLE, b"")
        self.control = gatt.Characteristic(UUID(CONTROL), props.WRITE | props.INDICATE,
                                           att.Attribute.WRITEABLE,
                                           gatt.CharacteristicValue(write=self.on_control_write))
        self.authentication = gatt.Characteristic(
            UUID(AUTHENTICATION), props.READ | props.WRITE | props.INDICATE, rw,
            gatt.CharacteristicValue(read=lambda _c: self.auth_value, write=self.on_auth_write))
        self.backfill = gatt.Characteristic(UUID(BACKFILL), props.READ | props.WRITE | props.NOTIFY,
                                            rw, b"")
        self.control.descriptors = [dexcom_common.protected_cccd(self.device, self.control)]
        self.device.add_services([gatt.Service(UUID(CGM_SERVICE), [
            self.communication, self.control, self.authentication, self.backfill])])
        dexcom_common.log_subscriptions([(self.control, "control"), (self.authentication, "authentication"),
                                         (self.backfill, "backfill")])

    # -- authentication ------------------------------------------------------------------------
    def on_auth_write(self, connection: Connection, value: bytes) -> None:
        emit({"received": "authentication", "hex": value.hex()})
        opcode = value[0] if value else None
        step = {0x01: "after-auth-request", 0x04: "after-challenge", 0x07: "after-bond-request"}.get(opcode)
        if step and self.drop_here(connection, step):
            return
        if opcode == 0x01 and len(value) == 10:
            # The last byte picks one of the transmitter's two display slots (xDrip
            # AuthRequestTxMessage endByteStd 0x02, endByteAlt 0x01; xdrip-js "receiver channel").
            emit({"event": "auth-request", "slot": {0x01: "receiver", 0x02: "phone"}.get(value[9], f"0x{value[9]:02x}")})
            self.token = value[1:9]
            self.challenge = os.urandom(8)
            key_id = self.args.answer_as or self.id
            self.reply_auth(connection, b"\x03" + dexcom_hash(key_id, self.token) + self.challenge)
        elif opcode == 0x04 and len(value) == 9:
            ok = value[1:9] == dexcom_hash(self.id, self.challenge)
            bonded = dexcom_common.bonded(self.device, connection)
            if ok:
                self.authenticated.add(connection.handle)
            emit({"event": "authenticated" if ok else "auth-failed", "bonded": bonded})
            self.reply_auth(connection, bytes([0x05, 1 if ok else 2, 1 if bonded else 2]))
        elif opcode == 0x06 and len(value) == 2:
            emit({"event": "keep-alive", "seconds": value[1]})
        elif opcode == 0x07:
            emit({"event": "bond-request"})
        else:
            raise att.ATT_Error(error_code=0x80)

    def reply_auth(self, connection: Connection, value: bytes) -> None:
        self.auth_value = value
        emit({"sent": "authentication", "hex": value.hex()})
        if self.subscribed(connection, self.authentication, 0x02):
            asyncio.get_running_loop().create_task(
                self.device.indicate_subscriber(connection, self.authentication, value))

    def subscribed(self, connection: Connection, characteristic: gatt.Characteristic, bit: int) -> bool:
        cccd = self.device.gatt_server.subscribers.get(connection.handle, {}).get(characteristic.handle) \
            or self.device.gatt_server.subscribers.get(connection, {}).get(characteristic.handle)
        return bool(cccd) and cccd[0] & bit != 0

    # -- control -------------------------------------------------------------------------------
    def on_control_write(self, connection: Connection, value: bytes) -> None:
        emit({"received": "control", "hex": value.hex()})
        if value == b"\x09":
            asyncio.get_running_loop().create_task(self.disconnect(connection))
            return
        if connection.handle not in self.authenticated:
            raise att.ATT_Error(error_code=ATT_INSUFFICIENT_AUTHENTICATION)
        if len(value) < 3 or crc16_xmodem(value[:-2]) != struct.unpack("<H", value[-2:])[0]:
            emit({"event": "bad-control-crc", "hex": value.hex()})
            return
        if value[0] in self.ignored:
            emit({"event": "ignored-control", "hex": value.hex()})  # --ignore: never answered
            return
        asyncio.get_running_loop().create_task(self.answer(connection, value))

    async def answer(self, connection: Connection, value: bytes) -> None:
        async with self.send_lock:
            await asyncio.sleep(0.01)  # after the Write Response, as a real transmitter does
            opcode = value[0]
            now = self.dex_now()
            if opcode == 0x34 and len(value) == 9:
                # CalibrateGlucose: glucose u16, time u32 (dex s); answered 35 status result.
                mgdl, when = struct.unpack("<HI", value[1:7])
                reply = with_crc(bytes([0x35, 0, self.args.calibration_result]))
                await self.indicate(connection, reply, {"sent": "calibration-result", "mgdl": mgdl, "dexTime": when,
                                                        "result": self.args.calibration_result})
            elif opcode == 0x24:
                reply = with_crc(struct.pack("<BBIII", 0x25, 0, now, self.session_start(), 1))
                await self.indicate(connection, reply, {"sent": "time", "dexTime": now,
                                                        "sessionStart": self.session_start()})
            elif opcode in (0x30, 0x4E):
                if self.drop_here(connection, "mid-glucose"):
                    return
                t = self.latest_reading_time()
                mgdl, trend = self.glucose_at(t)
                reply = with_crc(struct.pack("<BBIIHBb", opcode + 1, 0, t // READING_INTERVAL, t, mgdl, 6, trend))
                if self.args.bad_crc:
                    reply = reply[:-1] + bytes([reply[-1] ^ 0xFF])
                await self.indicate(connection, reply, {"sent": "glucose", "dexTime": t, "mgdl": mgdl,
                                                        "trend": trend, "state": 6, "badCrc": self.args.bad_crc})
            elif opcode == 0x2E:
                reply = with_crc(struct.pack("<BBIII", 0x2F, 0, self.latest_reading_time(), 180000, 176000))
                await self.indicate(connection, reply, {"sent": "sensor"})
            elif opcode == 0x32:
                reply = with_crc(bytes.fromhex("33002b290090012900ae008000") + struct.pack("<I", self.session_start() + 7200))
                await self.indicate(connection, reply, {"sent": "calibration"})
            elif opcode == 0x22:
                reply = with_crc(struct.pack("<BBHHHBb", 0x23, 0, 316, 303, 717, 31, 36))
                await self.indicate(connection, reply, {"sent": "battery"})
            elif opcode == 0x20:
                reply = with_crc(bytes([0x21, 0, 1, 6, 5, 25, 4, 0, 0, 1, 2, 0, 0, 0]) + struct.pack("<H", 0x4321))
                await self.indicate(connection, reply, {"sent": "version", "firmware": "1.6.5.25"})
            elif opcode == 0x4A:
                reply = with_crc(bytes.fromhex("4b0001000011df2900005100037000f000"))
                await self.indicate(connection, reply, {"sent": "transmitter-version"})
            elif opcode == 0x50 and len(value) == 20:
                start, end = struct.unpack("<II", value[4:12])
                await self.send_backfill(connection, start, end)
            else:
                emit({"event": "unknown-control", "hex": value.hex()})

    async def indicate(self, connection: Connection, value: bytes, record: dict) -> None:
        if not self.subscribed(connection, self.control, 0x02):
            emit({"event": "not-subscribed", "hex": value.hex()})
            return
        await self.device.indicate_subscriber(connection, self.control, value)
        emit({**record, "hex": value.hex()})

    async def send_backfill(self, connection: Connection, start: int, end: int) -> None:
        records = []
        # A 4-byte header whose meaning is unknown (docs/protocols/dexcom-g5-g6.md §Backfill).
        payload = bytearray(b"\x00\x00\x00\x00")
        for t in self.reading_times(start, end):
            mgdl, trend = self.glucose_at(t)
            records.append([t, mgdl, 6, trend])
            payload += struct.pack("<IHBb", t, mgdl, 6, trend)
        frames = []
        for index, offset in enumerate(range(0, len(payload), 18)):
            frames.append(bytes([index + 1, 0]) + bytes(payload[offset:offset + 18]))
        if self.args.truncate_backfill and len(frames) > 1:
            sent_frames = frames[:-1]
        else:
            sent_frames = frames
        if len(sent_frames) > 1 and "mid-backfill" in self.drops_pending:
            # Half the frames, then the link goes.
            for frame in sent_frames[:len(sent_frames) // 2]:
                await self.device.notify_subscriber(connection, self.backfill, frame)
            self.drop_here(connection, "mid-backfill", frames=len(sent_frames) // 2)
            return
        for frame in sent_frames:
            await self.device.notify_subscriber(connection, self.backfill, frame)
        buffer = b"".join(frames)
        done = with_crc(struct.pack("<BBBBIIIH", 0x51, 0, 1, 0, start, end, len(buffer), crc16_xmodem(buffer)))
        await self.indicate(connection, done, {"sent": "backfill", "start": start, "end": end,
                                               "records": records, "frames": len(sent_frames),
                                               "truncated": len(sent_frames) != len(frames)})

    def drop_here(self, connection: Connection, step: str, **fields) -> bool:
        """--drop-at: drops the link (as a transmitter walking out of range would, reason 0x13
        from our side) the first time the handshake reaches `step`; true when it did."""
        if step not in self.drops_pending:
            return False
        self.drops_pending.remove(step)
        emit({"event": "link-dropped-at", "step": step, **fields})
        asyncio.get_running_loop().create_task(self.disconnect(connection, requested=False))
        return True

    async def disconnect(self, connection: Connection, requested: bool = True) -> None:
        if requested:
            emit({"event": "disconnect-requested"})
        await dexcom_common.disconnect(connection)

    # -- connection life -----------------------------------------------------------------------
    def on_connection(self, connection: Connection) -> None:
        peer = str(connection.peer_address)
        emit({"event": "connected", "peer": peer, "handle": connection.handle, "dexTime": self.dex_now()})
        if "after-connect" in self.drops_pending:
            async def drop_soon() -> None:
                await asyncio.sleep(0)  # at once: before the central's first request is answered
                self.drop_here(connection, "after-connect")
            asyncio.get_running_loop().create_task(drop_soon())

        def on_disconnection(reason) -> None:
            self.authenticated.discard(connection.handle)
            emit({"event": "disconnected", "peer": peer, "reason": int(reason)})
            if not self.rig.stopping.is_set():  # links dropped while the rig stops need no cycle
                self.readvertising = asyncio.get_running_loop().create_task(dexcom_common.readvertise(
                    self.device, self.args.readvertise_after, lambda: {"dexTime": self.dex_now()}))

        connection.on(connection.EVENT_DISCONNECTION, on_disconnection)
        dexcom_common.log_security(connection, peer)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rig_common.add_common_arguments(parser)
    parser.add_argument("--id", default="8112AB", help="6-character transmitter ID (4... G5, 8... G6)")
    parser.add_argument("--answer-as", metavar="ID",
                        help="answer the token with this ID's key (a transmitter with another ID)")
    parser.add_argument("--address", default="C3:DE:C0:00:12:AB", help="random static address")
    parser.add_argument("--transmitter-age", type=int, default=1_000_000, help="dex time at start, s")
    parser.add_argument("--session-age-minutes", type=int, default=120, help="sensor session age at start")
    parser.add_argument("--speed", type=float, default=1.0, help="dex seconds per real second")
    parser.add_argument("--readvertise-after", type=float, default=5.0,
                        help="real seconds without advertising after a disconnection")
    parser.add_argument("--bad-crc", action="store_true", help="corrupt the CRC of every glucose reply")
    parser.add_argument("--truncate-backfill", action="store_true", help="drop the last backfill frame")
    parser.add_argument("--glucose-mgdl", type=int, help="serve this glucose for every reading (flat trend)")
    parser.add_argument("--ignore", default="", help="Control opcodes never answered, hex, comma-separated (e.g. 32)")
    parser.add_argument("--calibration-result", type=int, default=0, help="result byte of the 0x35 answer to 0x34")
    dexcom_common.add_drop_at(parser, DROP_STEPS, "handshake")
    args = parser.parse_args()
    if len(args.id) != 6 or args.id[0] not in "48":
        parser.error("--id must be 6 characters starting with 4 or 8")
    await dexcom_common.serve(args, "dexcom-g6", lambda rig: Transmitter(args, rig), lambda transmitter: {
        "address": args.address, "addressType": "random", "name": transmitter.name, "id": transmitter.id,
        "sessionStart": transmitter.session_start(), "speed": args.speed})


if __name__ == "__main__":
    asyncio.run(main())
