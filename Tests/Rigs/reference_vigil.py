#!/usr/bin/env python3
"""A reference implementation of vigil's CLI *contract* on a Bumble central, to test the tests.

The Swift interop tests (Tests/InteropTests) are written against the contract of `vigil scan`,
`vigil gatt` and `vigil run` before the real binary implements it. Running them against this
script (`VIGIL_BINARY=Tests/Rigs/reference-vigil swift test --filter InteropTests`) proves that
a correct implementation passes them, so a red test means vigil, not the test. It is NOT part
of the product and decodes only what the heart-rate rig serves.

  reference_vigil.py scan --hci tcp:127.0.0.1:PORT --seconds 4 --json
  reference_vigil.py gatt ADDRESS --hci tcp:127.0.0.1:PORT [--json]
  reference_vigil.py run --hci tcp:... --config FILE --state-dir DIR --events-json [--seconds N]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import struct
import sys

from bumble import att, gatt, hci
from bumble.device import Advertisement, Device, Peer
from bumble.keys import JsonKeyStore
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport import open_transport

# A random static address of our own: the virtual controller drops ACL data of a central on
# its public address (docs/bumble-peer.md), and the rig finds our bond by this address.
CENTRAL_ADDRESS = "F0:5A:11:00:00:01"
CONTACT = {0: "unsupported", 1: "unsupported", 2: "not-detected", 3: "detected"}


def out(obj: dict) -> None:
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def transport_spec(hci_argument: str) -> str:
    if not hci_argument.startswith("tcp:"):
        sys.exit(f"only --hci tcp:HOST:PORT is supported here, got {hci_argument}")
    return "tcp-client:" + hci_argument[len("tcp:"):]


def uuid_text(uuid) -> str:
    return uuid.to_hex_str("-")


def plain_address(address: hci.Address) -> str:
    return address.to_string(with_type_qualifier=False)


async def make_device(source, sink, keystore=None) -> Device:
    device = Device.with_hci("reference-vigil", hci.Address(CENTRAL_ADDRESS), source, sink)
    if keystore is not None:
        device.keystore = keystore
    device.pairing_config_factory = lambda _c: PairingConfig(
        sc=True, mitm=False, bonding=True,
        delegate=PairingDelegate(io_capability=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT))
    await device.power_on()
    return device


def sighting(advertisement: Advertisement) -> dict:
    ad = advertisement.data
    services = []
    for kind in (ad.COMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS,
                 ad.INCOMPLETE_LIST_OF_16_BIT_SERVICE_CLASS_UUIDS,
                 ad.COMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS,
                 ad.INCOMPLETE_LIST_OF_128_BIT_SERVICE_CLASS_UUIDS):
        services += [uuid_text(u) for u in ad.get(kind) or []]
    record = {"address": plain_address(advertisement.address),
              "addressType": "public" if advertisement.address.is_public else "random",
              "rssi": advertisement.rssi}
    if (name := ad.get(ad.COMPLETE_LOCAL_NAME) or ad.get(ad.SHORTENED_LOCAL_NAME)) is not None:
        record["name"] = name
    if services:
        record["services"] = services
    if (appearance := ad.get(ad.APPEARANCE)) is not None:
        record["appearance"] = int(appearance)
    record["connectable"] = bool(advertisement.is_connectable)
    return record


async def find(device: Device, predicate, timeout: float) -> Advertisement | None:
    found = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement: Advertisement) -> None:
        if not found.done() and predicate(advertisement):
            found.set_result(advertisement)

    device.on(Device.EVENT_ADVERTISEMENT, on_advertisement)
    await device.start_scanning(active=False, filter_duplicates=False)
    try:
        return await asyncio.wait_for(found, timeout)
    except asyncio.TimeoutError:
        return None
    finally:
        device.remove_listener(Device.EVENT_ADVERTISEMENT, on_advertisement)
        await device.stop_scanning()


async def scan(args) -> int:
    async with await open_transport(transport_spec(args.hci)) as (source, sink):
        device = await make_device(source, sink)
        last: dict[str, dict] = {}

        def on_advertisement(advertisement: Advertisement) -> None:
            record = sighting(advertisement)
            if last.get(record["address"]) != record:
                last[record["address"]] = record
                out(record)

        device.on(Device.EVENT_ADVERTISEMENT, on_advertisement)
        await device.start_scanning(active=False, filter_duplicates=False)
        await asyncio.sleep(args.seconds)
        await device.stop_scanning()
    return 0


PROPERTY_NAMES = [(0x01, "broadcast"), (0x02, "read"), (0x04, "write-without-response"),
                  (0x08, "write"), (0x10, "notify"), (0x20, "indicate"),
                  (0x40, "authenticated-signed-writes"), (0x80, "extended-properties")]


async def gatt_dump(args) -> int:
    async with await open_transport(transport_spec(args.hci)) as (source, sink):
        device = await make_device(source, sink)
        connection = await device.connect(hci.Address(args.address, hci.Address.RANDOM_DEVICE_ADDRESS),
                                          timeout=10)
        peer = Peer(connection)
        await peer.discover_services()
        services = []
        for service in peer.services:
            await peer.discover_characteristics(service=service)
            characteristics = []
            for characteristic in service.characteristics:
                await peer.discover_descriptors(characteristic)
                properties = int(characteristic.properties)
                entry = {"uuid": uuid_text(characteristic.uuid),
                         # Bumble's proxy keeps only the value handle; its server puts the
                         # declaration right before it.
                         "handle": characteristic.handle - 1,
                         "valueHandle": characteristic.handle,
                         "properties": [name for bit, name in PROPERTY_NAMES if properties & bit]}
                if properties & 0x02:
                    try:
                        entry["value"] = (await peer.read_value(characteristic)).hex()
                    except att.ATT_Error:
                        pass
                entry["descriptors"] = [{"uuid": uuid_text(d.type), "handle": d.handle}
                                        for d in characteristic.descriptors]
                characteristics.append(entry)
            services.append({"uuid": uuid_text(service.uuid), "start": service.handle,
                             "end": service.end_group_handle, "characteristics": characteristics})
        await connection.disconnect()
    document = {"address": args.address, "services": services}
    if args.json:
        out(document)
    else:
        for service in services:
            print(f"service {service['uuid']}  handles {service['start']}-{service['end']}")
            for c in service["characteristics"]:
                print(f"  {c['uuid']:>6}  @{c['valueHandle']:<4} {','.join(c['properties']):<20} "
                      f"{c.get('value', '')}")
    return 0


def parse_config(path: str) -> list[dict]:
    """The TOML subset of the contract: [[device]] tables of `key = "string" | true | false`."""
    devices: list[dict] = []
    with open(path) as handle:
        for raw in handle:
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line == "[[device]]":
                devices.append({})
                continue
            key, _, value = (part.strip() for part in line.partition("="))
            if not devices:
                sys.exit(f"{path}: key outside [[device]]")
            devices[-1][key] = value.strip('"') if value.startswith('"') else value == "true"
    return devices


def decode_measurement(value: bytes) -> dict:
    flags = value[0]
    offset = 1
    if flags & 0x01:
        bpm = struct.unpack_from("<H", value, offset)[0]
        offset += 2
    else:
        bpm = value[offset]
        offset += 1
    reading = {"bpm": bpm, "contact": CONTACT[(flags >> 1) & 0x03]}
    if flags & 0x08:
        reading["energyExpended"] = struct.unpack_from("<H", value, offset)[0]
        offset += 2
    if flags & 0x10:
        count = (len(value) - offset) // 2
        reading["rrIntervals"] = [rr / 1024 for rr in struct.unpack_from(f"<{count}H", value, offset)]
    return reading


async def run(args) -> int:
    config = parse_config(args.config)[0]
    os.makedirs(args.state_dir, exist_ok=True)
    keystore = JsonKeyStore("reference-vigil", os.path.join(args.state_dir, "bonds.json"))
    loop = asyncio.get_running_loop()
    deadline = loop.time() + args.seconds
    async with await open_transport(transport_spec(args.hci)) as (source, sink):
        device = await make_device(source, sink, keystore)
        if "address" in config:
            wanted = lambda a: plain_address(a.address) == config["address"]
        else:
            wanted = lambda a: a.data.get(a.data.COMPLETE_LOCAL_NAME) == config["name"]
        advertisement = await find(device, wanted, max(1.0, deadline - loop.time()))
        if advertisement is None:
            return 0
        address = plain_address(advertisement.address)
        connection = await device.connect(advertisement.address, timeout=10)
        out({"event": "connected", "device": address})
        connection.on(connection.EVENT_DISCONNECTION, lambda reason: out(
            {"event": "disconnected", "device": address, "reason": hci.HCI_Constant.error_name(reason)}))
        if config.get("pair"):
            bonded = await keystore.get(str(connection.peer_address)) is not None
            if bonded:
                await connection.encrypt()
            else:
                await connection.pair()
                out({"event": "paired", "device": address, "secureConnections": bool(connection.sc)})
            out({"event": "encrypted", "device": address, "bonded": True})
        peer = Peer(connection)
        await peer.discover_services()
        for service in peer.services:
            await peer.discover_characteristics(service=service)
        battery = peer.get_characteristics_by_uuid(gatt.GATT_BATTERY_LEVEL_CHARACTERISTIC)[0]
        level = await peer.read_value(battery)
        out({"event": "battery", "device": address, "percent": level[0]})
        await peer.subscribe(battery, lambda value: out(
            {"event": "battery", "device": address, "percent": value[0]}))
        hrm = peer.get_characteristics_by_uuid(gatt.GATT_HEART_RATE_MEASUREMENT_CHARACTERISTIC)[0]
        await peer.subscribe(hrm, lambda value: out(
            {"event": "reading", "device": address, "kind": "heart-rate", **decode_measurement(value)}))
        await asyncio.sleep(max(0.0, deadline - loop.time()))
        await connection.disconnect()
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    p = commands.add_parser("scan")
    p.add_argument("--hci", required=True)
    p.add_argument("--seconds", type=float, default=4)
    p.add_argument("--json", action="store_true")
    p = commands.add_parser("gatt")
    p.add_argument("address")
    p.add_argument("--hci", required=True)
    p.add_argument("--json", action="store_true")
    p = commands.add_parser("run")
    p.add_argument("--hci", required=True)
    p.add_argument("--config", required=True)
    p.add_argument("--state-dir", required=True)
    p.add_argument("--events-json", action="store_true")
    p.add_argument("--seconds", type=float, default=3600)
    args = parser.parse_args()
    handler = {"scan": scan, "gatt": gatt_dump, "run": run}[args.command]
    sys.exit(asyncio.run(handler(args)))


if __name__ == "__main__":
    main()
