#!/usr/bin/env python3
"""Proves dexcom_g6.py works before Vigil is tested against it, with a Bumble *central*.

Launches the rig, then over `tcp-client:127.0.0.1:PORT`, as Vigil would: scans for "Dexcom"+ID
suffix and 0xFEBC, connects, authenticates (AuthRequestTx, read AuthChallengeRx, check the
token hash with this file's own AES, AuthChallengeTx, read AuthStatusRx), sends KeepAlive and
BondRequest, pairs, subscribes to Control, asks time and glucose, checks CRCs and values
against the rig's log, asks a backfill and validates frames against the 0x51 completion
(length, buffer CRC, record window), then writes Disconnect (0x09). A second session must
report bonded = 1. With `--faults`, checks instead that --answer-as, --bad-crc and
--truncate-backfill produce the fault they name. Exits 0 only if every check passed
(`CHECK ok|FAIL ...` lines).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import struct

from bumble.core import UUID
from bumble.device import Device, Peer
from bumble.keys import MemoryKeyStore

from check_common import Checks, RigProcess, central, run_main, scan_for
from dexcom_g6 import AUTHENTICATION, BACKFILL, CONTROL, crc16_xmodem, dexcom_hash, with_crc

CENTRAL_ADDRESS = "F0:F1:F2:F3:F4:F6"


def crc_ok(value: bytes) -> bool:
    return len(value) >= 3 and crc16_xmodem(value[:-2]) == struct.unpack("<H", value[-2:])[0]


async def open_transmitter(device: Device, rig: RigProcess):
    """Connects and finds the CGM service's Authentication, Control and Backfill
    characteristics (with the descriptors of the two that notify)."""
    connection = await device.connect(rig.address, timeout=10)
    peer = Peer(connection)
    await peer.discover_services()
    await peer.discover_characteristics()
    auth = peer.get_characteristics_by_uuid(UUID(AUTHENTICATION))[0]
    control = peer.get_characteristics_by_uuid(UUID(CONTROL))[0]
    backfill = peer.get_characteristics_by_uuid(UUID(BACKFILL))[0]
    await peer.discover_descriptors(control)
    await peer.discover_descriptors(backfill)
    return connection, peer, auth, control, backfill


async def session(device: Device, rig: RigProcess, checks: Checks, transmitter_id: str, first: bool) -> None:
    label = "first session" if first else "second session"
    connection, peer, auth, control, backfill = await open_transmitter(device, rig)

    token = os.urandom(8)
    await peer.write_value(auth, b"\x01" + token + b"\x02", with_response=True)
    challenge_rx = bytes(await peer.read_value(auth))
    checks.check(len(challenge_rx) == 17 and challenge_rx[0] == 0x03, f"{label}: AuthChallengeRx", challenge_rx.hex())
    checks.check(challenge_rx[1:9] == dexcom_hash(transmitter_id, token), f"{label}: token hash matches the ID")
    await peer.write_value(auth, b"\x04" + dexcom_hash(transmitter_id, challenge_rx[9:17]), with_response=True)
    status = bytes(await peer.read_value(auth))
    checks.check(status[:2] == b"\x05\x01", f"{label}: authenticated", status.hex())
    bonded = status[2] == 1
    checks.check(bonded == (not first), f"{label}: bonded = {not first}", status.hex())
    if not bonded:
        await peer.write_value(auth, b"\x06\x19", with_response=True)
        await peer.write_value(auth, b"\x07", with_response=True)
        await asyncio.wait_for(connection.pair(), 15)
        checks.check(connection.is_encrypted, f"{label}: paired and encrypted")
    else:
        await asyncio.wait_for(connection.encrypt(), 15)
        checks.check(connection.is_encrypted, f"{label}: re-encrypted from the bond")

    replies: asyncio.Queue[bytes] = asyncio.Queue()
    frames: list[bytes] = []
    await peer.subscribe(control, lambda value: replies.put_nowait(bytes(value)), prefer_notify=False)
    await peer.subscribe(backfill, lambda value: frames.append(bytes(value)), prefer_notify=True)

    async def ask(request: bytes) -> bytes:
        await peer.write_value(control, request, with_response=True)
        return await asyncio.wait_for(replies.get(), 5)

    time_rx = await ask(with_crc(b"\x24"))
    checks.check(time_rx[0] == 0x25 and len(time_rx) == 16 and crc_ok(time_rx), f"{label}: TransmitterTimeRx", time_rx.hex())
    current, session_start = struct.unpack("<II", time_rx[2:10])
    glucose = await ask(bytes.fromhex("4e0aa9"))
    checks.check(glucose[0] == 0x4F and len(glucose) == 16 and crc_ok(glucose), f"{label}: G6 GlucoseRx", glucose.hex())
    _, _, sequence, timestamp, mgdl, state, trend = struct.unpack("<BBIIHBb", glucose[:14])
    logged = await rig.wait_for(lambda r: r.get("sent") == "glucose" and r.get("hex") == glucose.hex())
    checks.check(logged is not None and logged["mgdl"] == mgdl and logged["dexTime"] == timestamp,
                 f"{label}: glucose matches the rig's log", logged)
    checks.check(session_start <= timestamp <= current, f"{label}: reading time within the session")

    start = max(session_start, timestamp - 3600)
    completion = await ask(with_crc(struct.pack("<BBBBIIIH", 0x50, 5, 2, 0, start, timestamp, 0, 0)))
    checks.check(completion[0] == 0x51 and crc_ok(completion), f"{label}: BackfillRx", completion.hex())
    _, _, _, _, c_start, c_end, length, buffer_crc = struct.unpack("<BBBBIIIH", completion[:18])
    buffer = b"".join(frames)
    checks.check(length == len(buffer), f"{label}: backfill length", (length, len(buffer)))
    checks.check(buffer_crc == crc16_xmodem(buffer), f"{label}: backfill buffer CRC")
    payload = b"".join(frame[2:] for frame in frames)[4:]
    records = [struct.unpack("<IHBb", payload[i:i + 8]) for i in range(0, len(payload), 8)]
    checks.check(len(records) == 13 and all(c_start <= r[0] <= c_end for r in records),
                 f"{label}: 13 records in the window", [r[0] for r in records])
    checks.check(records and records[-1][0] == timestamp and records[-1][1] == mgdl,
                 f"{label}: last backfill record is the live reading")

    await peer.write_value(control, b"\x09", with_response=False)
    gone = await rig.wait_for(lambda r: r.get("event") == "disconnected" and
                              sum(1 for x in rig.lines if x.get("event") == "disconnected") == (1 if first else 2))
    checks.check(gone is not None, f"{label}: Disconnect (0x09) dropped the link")
    await rig.wait_for(lambda r: r.get("event") == "advertising" and
                       sum(1 for x in rig.lines if x.get("event") == "advertising") == (1 if first else 2), 10)


async def run(args) -> int:
    checks = Checks()
    rig = RigProcess("dexcom_g6.py")
    await rig.start(["--id", args.id, "--readvertise-after", "0.5"])
    checks.check(rig.port > 0, "rig READY", rig.port)
    keystore = MemoryKeyStore()
    try:
        async with central(rig, CENTRAL_ADDRESS, keystore) as device:
            advertisement = await scan_for(device, rig.info["address"], 10)
            if checks.check(advertisement is not None, "scan found the rig"):
                ad = advertisement.data
                checks.check(ad.get(ad.COMPLETE_LOCAL_NAME) == "Dexcom" + args.id[-2:], "advertised name")
                services = [u.to_hex_str() for u in ad.get(ad.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS) or []]
                checks.check(services == ["FEBC"], "advertised 0xFEBC", services)
            await session(device, rig, checks, args.id, first=True)
            await session(device, rig, checks, args.id, first=False)
    finally:
        code = await rig.stop()
        checks.check(code == 0, "rig exited cleanly on stdin close", code)
    return checks.finish()


async def faults(args) -> int:
    """Each fault switch of the rig produces exactly the fault it names."""
    checks = Checks()
    for switch in (["--answer-as", "8199ZZ"], ["--bad-crc"], ["--truncate-backfill"]):
        rig = RigProcess("dexcom_g6.py")
        await rig.start(["--id", args.id, "--session-age-minutes", "60"] + switch)
        label = " ".join(switch)
        try:
            async with central(rig, CENTRAL_ADDRESS, MemoryKeyStore()) as device:
                connection, peer, auth, control, backfill = await open_transmitter(device, rig)
                token = os.urandom(8)
                await peer.write_value(auth, b"\x01" + token + b"\x02", with_response=True)
                challenge_rx = bytes(await peer.read_value(auth))
                matches = challenge_rx[1:9] == dexcom_hash(args.id, token)
                if switch[0] == "--answer-as":
                    checks.check(not matches, f"{label}: token hash does not match our ID")
                    checks.check(challenge_rx[1:9] == dexcom_hash("8199ZZ", token), f"{label}: it is the other ID's hash")
                    continue
                await peer.write_value(auth, b"\x04" + dexcom_hash(args.id, challenge_rx[9:17]), with_response=True)
                await peer.read_value(auth)
                await peer.write_value(auth, b"\x07", with_response=True)
                await asyncio.wait_for(connection.pair(), 15)
                replies: asyncio.Queue[bytes] = asyncio.Queue()
                frames: list[bytes] = []
                await peer.subscribe(control, lambda value: replies.put_nowait(bytes(value)), prefer_notify=False)
                await peer.subscribe(backfill, lambda value: frames.append(bytes(value)), prefer_notify=True)
                await peer.write_value(control, bytes.fromhex("4e0aa9"), with_response=True)
                glucose = await asyncio.wait_for(replies.get(), 5)
                if switch[0] == "--bad-crc":
                    checks.check(not crc_ok(glucose), f"{label}: glucose CRC is wrong", glucose.hex())
                    continue
                checks.check(crc_ok(glucose), f"{label}: glucose CRC is right")
                timestamp = struct.unpack("<I", glucose[6:10])[0]
                request = with_crc(struct.pack("<BBBBIIIH", 0x50, 5, 2, 0, timestamp - 1800, timestamp, 0, 0))
                await peer.write_value(control, request, with_response=True)
                completion = await asyncio.wait_for(replies.get(), 5)
                length = struct.unpack("<I", completion[12:16])[0]
                checks.check(crc_ok(completion) and length > len(b"".join(frames)),
                             f"{label}: frames fall short of the announced length", (length, len(b"".join(frames))))
        finally:
            code = await rig.stop()
            checks.check(code == 0, f"{label}: rig exited cleanly", code)
    return checks.finish()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--id", default="8112AB")
    parser.add_argument("--faults", action="store_true", help="check the rig's fault switches instead")
    args = parser.parse_args()
    run_main(faults(args) if args.faults else run(args), 90)


if __name__ == "__main__":
    main()
