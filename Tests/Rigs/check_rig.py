#!/usr/bin/env python3
"""Proves a rig works before Vigil is tested against it, with a Bumble *central*.

Launches `heart_rate_monitor.py` (or connects to one already running with `--port`), then over
`tcp-client:127.0.0.1:PORT`, as Vigil would: scans, connects, discovers, reads, subscribes,
pairs with LE Secure Connections (Just Works), compares every received notification with the
rig's `{"sent":...}` log, disconnects, reconnects and re-encrypts from the bond (no second
pairing); then abandons a live link by closing the TCP client (the rig must drop it) and
repeats the bonded session from a second client with the same key store, which is what a
second `vigil run --state-dir` does. Exits 0 only if every check passed; prints one `CHECK ok|FAIL ...` line per check and
a closing `N passed, N failed` line.

Examples:
  check_rig.py                       # default rig, extended advertising reports
  check_rig.py --require-encryption  # CCCD writes refused until paired
  check_rig.py --legacy-reports      # scanner gets legacy LE Advertising Reports
"""

from __future__ import annotations

import argparse
import asyncio

from bumble import gatt
from bumble.device import Advertisement, Device, Peer
from bumble.keys import MemoryKeyStore

from check_common import Checks, RigProcess, att_error_of, central, discover_all, run_main, scan_for

# Our own random static address: the virtual controller loses ACL data of a central that uses
# its public address (docs/bumble-peer.md), and a stable address lets the rig find our bond again.
CENTRAL_ADDRESS = "F0:F1:F2:F3:F4:F5"


async def session(device: Device, rig: RigProcess, checks: Checks, args, first: bool) -> None:
    label = "first" if first else "reconnect"
    log_start = len(rig.lines)  # compare only what the rig sent during this session
    connection = await device.connect(rig.address, timeout=10)
    checks.check(True, f"{label}: connected", connection.handle)
    peer = Peer(connection)
    await discover_all(peer)
    uuids = {service.uuid.to_hex_str() for service in peer.services}
    checks.check({"180D", "180F", "180A"} <= uuids, f"{label}: services discovered", sorted(uuids))
    hrm = peer.get_characteristics_by_uuid(gatt.GATT_HEART_RATE_MEASUREMENT_CHARACTERISTIC)[0]
    battery = peer.get_characteristics_by_uuid(gatt.GATT_BATTERY_LEVEL_CHARACTERISTIC)[0]

    received: list[bytes] = []

    def on_value(value: bytes) -> None:
        received.append(bytes(value))

    # One callback object for every attempt: Bumble's client registers the callback before it
    # writes the CCCD, so a refused write followed by a retry with a new lambda would deliver
    # each notification twice.
    subscribe = peer.subscribe(hrm, on_value)
    if first:
        manufacturer = peer.get_characteristics_by_uuid(
            gatt.GATT_MANUFACTURER_NAME_STRING_CHARACTERISTIC)[0]
        value = (await peer.read_value(manufacturer)).decode()
        checks.check(value == rig.info["deviceInformation"]["manufacturer"],
                     "manufacturer string read", value)
        location = await peer.read_value(
            peer.get_characteristics_by_uuid(gatt.GATT_BODY_SENSOR_LOCATION_CHARACTERISTIC)[0])
        checks.check(location == b"\x01", "body sensor location = chest", location.hex())
        cp = peer.get_characteristics_by_uuid(gatt.GATT_HEART_RATE_CONTROL_POINT_CHARACTERISTIC)[0]
        checks.check(await att_error_of(peer.write_value(cp, b"\x01", with_response=True)) is None,
                     "HR control point accepts 0x01 (reset energy)")
        code = await att_error_of(peer.write_value(cp, b"\x02", with_response=True))
        checks.check(code == 0x80, "HR control point refuses 0x02 with 0x80", code)
        if args.require_encryption:
            code = await att_error_of(subscribe)
            checks.check(code == 0x05, "unpaired CCCD write -> Insufficient Authentication", code)
            subscribe = peer.subscribe(hrm, on_value)
        # Pair: LE Secure Connections, Just Works, bonding.
        await asyncio.wait_for(connection.pair(), 15)
        checks.check(bool(connection.sc), "paired with Secure Connections")
        paired = await rig.wait_for(lambda r: r.get("event") == "paired")
        checks.check(paired is not None and paired["secureConnections"] and paired["bonded"],
                     "rig saw SC pairing and bonded", paired)
    else:
        await asyncio.wait_for(connection.encrypt(), 10)
        checks.check(bool(connection.encryption), "re-encrypted from the bond")
        pairings = [r for r in rig.lines if r.get("event") == "paired"]  # over all sessions
        checks.check(len(pairings) == 1, "no second pairing on the rig", len(pairings))

    await subscribe
    await peer.subscribe(battery, lambda value: None)
    level = await peer.read_value(battery)
    checks.check(0 < level[0] <= 100, f"{label}: battery level read", level[0])

    want = args.notifications
    for _ in range(int(want / args.rate_hz * 3) + 20):
        if len(received) >= want:
            break
        await asyncio.sleep(0.1)
    me = str(device.random_address)
    sent = [r for r in rig.lines[log_start:] if r.get("sent") == "hrm" and r.get("peer", "").startswith(me)]
    sent_hex = [r["hex"] for r in sent]
    got_hex = [value.hex() for value in received]
    checks.check(len(received) >= want, f"{label}: {want} notifications received", len(received))
    # The rig logs after the notification left it, so its log may trail by one in-flight value.
    checks.check(got_hex[: len(sent_hex)] == sent_hex[: len(got_hex)] and len(sent_hex) > 0,
                 f"{label}: notifications equal the rig's sent log one for one",
                 f"{len(got_hex)} received, {len(sent_hex)} logged")
    flags = {bytes.fromhex(h)[0] for h in got_hex}
    if first:
        checks.check(len(flags) >= min(want, 6), "notifications cycle through flag combinations",
                     sorted(f"{f:02x}" for f in flags))
    await connection.disconnect()
    gone = await rig.wait_for(lambda r: r.get("event") == "disconnected"
                              and r in rig.lines[log_start:])
    checks.check(gone is not None, f"{label}: rig saw the disconnection", gone)
    # Make sure the rig's advertising restarted before the next connect.
    await asyncio.sleep(0.5)


def check_advertisement(advertisement: Advertisement, rig: RigProcess, checks: Checks, args) -> None:
    ad = advertisement.data
    name = ad.get(ad.COMPLETE_LOCAL_NAME)
    checks.check(name == rig.info["name"], "advertised name", name)
    services = sorted(u.to_hex_str() for u in
                      ad.get(ad.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS) or [])
    checks.check(services == ["180D", "180F"], "advertised 16-bit services", services)
    appearance = ad.get(ad.APPEARANCE)
    checks.check(appearance is not None and int(appearance) == 832, "advertised appearance",
                 appearance)
    # Bumble's scanner gets extended reports unless the rig cleared the feature bit.
    checks.check(advertisement.is_legacy == args.legacy_reports, "report kind",
                 "legacy" if advertisement.is_legacy else "extended")
    checks.check(advertisement.is_connectable, "advertisement is connectable")


async def run(args) -> int:
    checks = Checks()
    rig = RigProcess("heart_rate_monitor.py")
    rig_args = ["--rate-hz", str(args.rate_hz)]
    if args.require_encryption:
        rig_args.append("--require-encryption")
    if args.legacy_reports:
        rig_args.append("--legacy-reports")
    await rig.start(rig_args)
    checks.check(rig.port > 0, "rig READY", rig.port)
    keystore = MemoryKeyStore()  # shared by both central "processes", like a state dir
    try:
        async with central(rig, CENTRAL_ADDRESS, keystore) as device:
            advertisement = await scan_for(device, rig.info["address"], 10)
            if checks.check(advertisement is not None, "scan found the rig"):
                check_advertisement(advertisement, rig, checks, args)
            await session(device, rig, checks, args, first=True)
            await session(device, rig, checks, args, first=False)
            # Leave without disconnecting, as a crashed host would.
            await device.connect(rig.address, timeout=10)
        dropped = await rig.wait_for(lambda r: r.get("event") == "link-dropped-by-rig")
        checks.check(dropped is not None, "rig dropped the abandoned link when the client left")
        # A second central on the same rig process and the same bond store: must re-encrypt.
        async with central(rig, CENTRAL_ADDRESS, keystore) as device:
            advertisement = await scan_for(device, rig.info["address"], 10)
            checks.check(advertisement is not None, "second client: scan found the rig again")
            await session(device, rig, checks, args, first=False)
    finally:
        code = await rig.stop()
        checks.check(code == 0, "rig exited cleanly on stdin close", code)
    return checks.finish()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--require-encryption", action="store_true")
    parser.add_argument("--legacy-reports", action="store_true")
    parser.add_argument("--rate-hz", type=float, default=10.0)
    parser.add_argument("--notifications", type=int, default=9,
                        help="how many notifications each session must receive and match")
    args = parser.parse_args()
    run_main(run(args), 120)


if __name__ == "__main__":
    main()
