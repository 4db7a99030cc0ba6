#!/usr/bin/env python3
"""Proves `glucose_meter.py` works before Vigil is tested against it, with a Bumble *central*.

Launches the rig, connects over `tcp-client:127.0.0.1:PORT` as Vigil would, and checks: the
advertisement; the feature; that the measurement CCCD and RACP writes are refused before
pairing (0x05); SC Just Works pairing with a bond; an RACP transfer of all records, each
measurement decoded here from the GATT XML layout (independently of the rig's encoder) and
compared with the rig's log; "records ≥ last + 1" answered by "no records found"; a filtered
transfer; the count; refusals with the right response codes; abort; reconnection that
re-encrypts without a second pairing. Then a second rig with `--stall-after 2` for the
procedure-timeout path: two records, silence, abort answered with success.

Prints one `CHECK ok|FAIL ...` line per check and a closing `N passed, N failed`; exits 0
only if everything passed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import struct

from bumble.core import UUID
from bumble.device import Device, Peer
from bumble.keys import MemoryKeyStore

from check_common import Checks, RigProcess, att_error_of, central, discover_all, run_main, scan_for

CENTRAL_ADDRESS = "F0:F1:F2:F3:F4:F6"
MEASUREMENT = UUID.from_16_bits(0x2A18)
CONTEXT = UUID.from_16_bits(0x2A34)
FEATURE = UUID.from_16_bits(0x2A51)
RACP = UUID.from_16_bits(0x2A52)


def decode_sfloat(raw: int) -> float | None:
    if raw in (0x07FF, 0x0800, 0x0801, 0x07FE, 0x0802):
        return None
    exponent = raw >> 12
    exponent -= 16 if exponent >= 8 else 0
    mantissa = raw & 0x0FFF
    mantissa -= 4096 if mantissa >= 2048 else 0
    return mantissa * 10.0 ** exponent


def decode_measurement(value: bytes) -> dict:
    """glucose_measurement.xml, written here independently of the rig's encoder."""
    flags = value[0]
    (sequence,) = struct.unpack_from("<H", value, 1)
    year, month, day, hour, minute, second = struct.unpack_from("<HBBBBB", value, 3)
    offset = 10
    result = {"seq": sequence, "localTime": f"{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}"}
    if flags & 0x01:
        (result["timeOffsetMin"],) = struct.unpack_from("<h", value, offset)
        offset += 2
    if flags & 0x02:
        (raw,) = struct.unpack_from("<H", value, offset)
        number = decode_sfloat(raw)
        result["mgdl"] = number * 1000 * 18.0182 if flags & 0x04 else number * 100000
        result["typeLocation"] = value[offset + 2]
        offset += 3
    if flags & 0x08:
        (result["status"],) = struct.unpack_from("<H", value, offset)
        offset += 2
    result["contextFollows"] = bool(flags & 0x10)
    assert offset == len(value), f"{len(value) - offset} trailing bytes"
    return result


class Session:
    """One connection's subscriptions, gathering what arrives."""

    def __init__(self) -> None:
        self.measurements: list[bytes] = []
        self.contexts: list[bytes] = []
        self.responses: asyncio.Queue[bytes] = asyncio.Queue()

    async def racp(self, peer: Peer, racp, request: bytes, timeout: float = 5.0) -> bytes | None:
        await peer.write_value(racp, request, with_response=True)
        try:
            return await asyncio.wait_for(self.responses.get(), timeout)
        except asyncio.TimeoutError:
            return None


async def connect(device: Device, rig: RigProcess):
    connection = await device.connect(rig.address, timeout=10)
    peer = Peer(connection)
    await discover_all(peer)
    get = lambda uuid: peer.get_characteristics_by_uuid(uuid)[0]  # noqa: E731
    return connection, peer, get


async def subscribe_all(peer: Peer, get, session: Session) -> None:
    await peer.subscribe(get(MEASUREMENT), lambda v: session.measurements.append(bytes(v)))
    await peer.subscribe(get(CONTEXT), lambda v: session.contexts.append(bytes(v)))
    await peer.subscribe(get(RACP), lambda v: session.responses.put_nowait(bytes(v)), prefer_notify=False)


async def full_check(checks: Checks, keystore: MemoryKeyStore) -> None:
    rig = RigProcess("glucose_meter.py")
    await rig.start(["--records", "5"])
    checks.check(rig.port > 0, "rig READY", rig.port)
    stored = rig.info["records"]
    try:
        async with central(rig, CENTRAL_ADDRESS, keystore) as device:
            advertisement = await scan_for(device, rig.info["address"], 10)
            if checks.check(advertisement is not None, "scan found the meter"):
                ad = advertisement.data
                services = sorted(u.to_hex_str() for u in ad.get(ad.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS) or [])
                checks.check(services == ["1808"], "advertises the Glucose Service", services)
                checks.check(ad.get(ad.COMPLETE_LOCAL_NAME) == rig.info["name"], "advertised name")

            connection, peer, get = await connect(device, rig)
            feature = await peer.read_value(get(FEATURE))
            checks.check(feature == bytes([0xFF, 0x01]), "feature 0x01FF read", feature.hex())
            session = Session()
            code = await att_error_of(peer.subscribe(get(MEASUREMENT), lambda v: None))
            checks.check(code == 0x05, "unpaired measurement CCCD -> Insufficient Authentication", code)
            code = await att_error_of(peer.write_value(get(RACP), b"\x01\x01", with_response=True))
            checks.check(code == 0x05, "unpaired RACP write -> Insufficient Authentication", code)
            await asyncio.wait_for(connection.pair(), 15)
            checks.check(bool(connection.sc), "paired with Secure Connections")
            # A fresh Peer: the refused subscription above left a callback registered.
            peer = Peer(connection)
            await discover_all(peer)
            get = lambda uuid: peer.get_characteristics_by_uuid(uuid)[0]  # noqa: E731
            await subscribe_all(peer, get, session)

            response = await session.racp(peer, get(RACP), b"\x01\x01")
            checks.check(response == bytes.fromhex("06000101"), "report all records -> success", response and response.hex())
            decoded = [decode_measurement(m) for m in session.measurements]
            checks.check([d["seq"] for d in decoded] == [r["seq"] for r in stored], "every stored record, oldest first",
                         [d["seq"] for d in decoded])
            sent = [r for r in rig.lines if r.get("sent") == "glucose-measurement"]
            checks.check([m.hex() for m in session.measurements] == [r["hex"] for r in sent],
                         "measurements equal the rig's sent log", f"{len(session.measurements)} received, {len(sent)} logged")
            checks.check(all(abs(d["mgdl"] - r["mgdl"]) < 0.01 and d["localTime"] == r["localTime"]
                             and d.get("timeOffsetMin") == r.get("timeOffsetMin") for d, r in zip(decoded, stored)),
                         "independent decode agrees on mg/dL, time and offset",
                         [(round(d["mgdl"], 2), r["mgdl"]) for d, r in zip(decoded, stored)])
            follows = [d["seq"] for d in decoded if d["contextFollows"]]
            context_seqs = [struct.unpack_from("<H", c, 1)[0] for c in session.contexts]
            checks.check(follows == context_seqs and len(follows) == 1, "one context, after its measurement", context_seqs)
            checks.check({d.get("status") for d in decoded} == {None, 1}, "one record with status battery low")
            checks.check(sum(1 for m in session.measurements if m[0] & 0x04) == 1, "one record in mol/L")

            last = max(r["seq"] for r in stored)
            session.measurements.clear()
            response = await session.racp(peer, get(RACP), b"\x01\x03\x01" + struct.pack("<H", last + 1))
            checks.check(response == bytes.fromhex("06000106") and not session.measurements,
                         "records >= last + 1 -> no records found", response and response.hex())
            response = await session.racp(peer, get(RACP), b"\x01\x03\x01\x03\x00")
            checks.check(response == bytes.fromhex("06000101")
                         and [decode_measurement(m)["seq"] for m in session.measurements] == [3, 4, 5],
                         "records >= 3 -> 3, 4, 5", [decode_measurement(m)["seq"] for m in session.measurements])
            response = await session.racp(peer, get(RACP), b"\x04\x01")
            checks.check(response == bytes.fromhex("05000500"), "count -> 5", response and response.hex())
            for request, expected, what in [
                (b"\x01\x07", "06000103", "invalid operator"),
                (b"\x01\x03\x02\x00\x00\x00\x00\x00\x00\x00", "06000109", "filter by user-facing time not supported"),
                (b"\x01\x03\x01\x03", "06000105", "truncated operand"),
                (b"\x07\x01", "06000702", "unknown op code"),
                (b"\x03\x00", "06000301", "abort with nothing running"),
            ]:
                response = await session.racp(peer, get(RACP), request)
                checks.check(response == bytes.fromhex(expected), f"{what} -> {expected}", response and response.hex())
            await connection.disconnect()
            await asyncio.sleep(0.5)

            connection, peer, get = await connect(device, rig)
            await asyncio.wait_for(connection.encrypt(), 10)
            checks.check(bool(connection.encryption), "reconnection re-encrypts from the bond")
            checks.check(sum(1 for r in rig.lines if r.get("event") == "paired") == 1, "no second pairing")
            session = Session()
            await subscribe_all(peer, get, session)
            response = await session.racp(peer, get(RACP), b"\x01\x06")
            checks.check(response == bytes.fromhex("06000101") and len(session.measurements) == 1
                         and decode_measurement(session.measurements[0])["seq"] == last, "last record after reconnection")
            await connection.disconnect()
    finally:
        code = await rig.stop()
        checks.check(code == 0, "rig exited cleanly", code)
        if os.environ.get("DUMP"):
            for line in rig.lines:
                print("RIG", json.dumps(line))


async def stall_check(checks: Checks) -> None:
    rig = RigProcess("glucose_meter.py")
    await rig.start(["--records", "5", "--stall-after", "2"])
    try:
        async with central(rig, CENTRAL_ADDRESS, MemoryKeyStore()) as device:
            checks.check(await scan_for(device, rig.info["address"], 10) is not None, "stall rig: scan found the meter")
            connection, peer, get = await connect(device, rig)
            await asyncio.wait_for(connection.pair(), 15)
            session = Session()
            await subscribe_all(peer, get, session)
            response = await session.racp(peer, get(RACP), b"\x01\x01", timeout=1.5)
            checks.check(response is None and len(session.measurements) == 2, "stall rig: two records, then silence",
                         len(session.measurements))
            response = await session.racp(peer, get(RACP), b"\x01\x01", timeout=1.0)
            checks.check(response == bytes.fromhex("06000108"), "stall rig: a new report while stalled -> not completed",
                         response and response.hex())
            response = await session.racp(peer, get(RACP), b"\x03\x00")
            checks.check(response == bytes.fromhex("06000301"), "stall rig: abort -> success", response and response.hex())
            await connection.disconnect()
    finally:
        checks.check(await rig.stop() == 0, "stall rig exited cleanly")


async def run() -> int:
    checks = Checks()
    await full_check(checks, MemoryKeyStore())
    await stall_check(checks)
    return checks.finish()


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    run_main(run(), 120)


if __name__ == "__main__":
    main()
