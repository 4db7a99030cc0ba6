#!/usr/bin/env python3
"""Hostile Bluetooth LE peers next to legitimate ones, on ONE Bumble controller (issue 7).

One process, one `bumble.link.LocalLink`: controller EXT (H4 over TCP, what Vigil connects to),
the legitimate heart-rate monitor of `heart_rate_monitor.py` on the rig's own PERIPH controller,
optionally the legitimate Dexcom G6 of `dexcom_g6.py` (`--with-dexcom`, on a controller of its
own), and the hostile peer(s) of `--scenario`, each a further controller + Bumble Host + Device on
the same link. The legitimate devices are the unchanged classes of their own rigs, so their
`{"sent":...}` logs are exactly what the single-device interop tests compare with.

Scenarios (what the hostile peer does; every hostile act is logged as `{"hostile":...}`):
- `flood`: an HRS peripheral that, once connected, notifies as fast as Bumble can: valid Heart
  Rate Measurements on its measurement handle whether subscribed or not, and notifications and
  indications on handles never subscribed or that do not exist, for `--attack-seconds`.
- `unsolicited-att`: an HRS peripheral that sends ATT responses to requests never made (Read,
  Write, Exchange MTU, Read By Group Type, Find Information, Error Responses) and answers
  every Write Request (the CCCD write included) with a Read Response.
- `l2cap-lies`: an HRS peripheral whose link carries forged ACL data, injected at EXT as the
  controller would hand it to Vigil (Bumble's own peripheral stack reassembles by the L2CAP
  length, so lies cannot travel over its link): basic-header length larger and smaller than
  the payload, a frame whose continuation never comes, continuations without a start,
  start fragments shorter than the header, a frame longer than any MTU, signaling commands
  with wrong lengths, and ACL data for a handle that does not exist.
- `oversized`: an HRS peripheral that keeps ATT_MTU at 23 and notifies values longer than the
  MTU allows (up to 200 bytes) and of length 0 on the measurement handle.
- `pairing-failures`: an HRS peripheral whose CCCD needs encryption and whose Security
  Manager misbehaves, one way per pairing attempt (`--pairing-faults`): Pairing Failed in
  answer to the Pairing Request, Pairing Failed after the public keys, a wrong confirm value,
  or (`silent`) no answer at all.
- `garbage-advertisers`: `--advertisers` (100) advertisers whose AD structures are garbage
  (lengths overrunning the data, zero lengths, unknown types, truncated service data, huge
  manufacturer data, BTHome- and Ruuvi-looking garbage), reported by EXT as LE Advertising
  Reports with well-formed HCI framing, plus a real BTHome thermometer on its own controller.
- `none`: the legitimate devices only (a control run).

The Dexcom's own fault switches (`--dexcom-drop-at`, `--dexcom-glucose-mgdl`) pass through.

stdout: `{"rig":"hostile-peers",...}` (addresses of every device), `READY <port>`, then the
legitimate rigs' lines and `{"hostile":KIND,"address":..,...}` lines.

Example: hostile_peers.py --port 0 --scenario flood --with-dexcom --dexcom-glucose-mgdl 50
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import os
import struct
import sys
from types import SimpleNamespace

from bumble import att, data_types, gatt, hci
from bumble.controller import Controller
from bumble.core import UUID, AdvertisingData
from bumble.device import Connection, Device, DeviceConfiguration
from bumble.host import Host
from bumble.keys import MemoryKeyStore
from bumble.transport.common import AsyncPipeSink

sys.dont_write_bytecode = True  # keep Tests/Rigs free of __pycache__

import bthome_thermometer  # noqa: E402
import dexcom_g6  # noqa: E402
import heart_rate_monitor  # noqa: E402
import rig_common  # noqa: E402
from hostile_garbage import garbage_advertising_data  # noqa: E402
from hostile_smp import MisbehavingSecurityManager  # noqa: E402
from rig_common import emit, u16  # noqa: E402

HOSTILE_ADDRESS = "C5:BA:D0:00:00:01"
DEXCOM_ADDRESS = "C3:DE:C0:00:12:AB"
THERMOMETER_ADDRESS = "C4:11:22:33:44:66"
ATT_CID = 0x0004
SIGNALING_CID = 0x0005
SCENARIOS = ("none", "flood", "unsolicited-att", "l2cap-lies", "oversized", "pairing-failures",
             "garbage-advertisers")


class Peripheral:
    """One more controller + Bumble Host on the rig's link, shaped like `rig_common.Rig` for the
    legitimate rigs' classes (they only use `.host`, `.stopping` and `.args`)."""

    def __init__(self, rig: rig_common.Rig, name: str) -> None:
        self.controller = Controller(name, link=rig.link)
        self.host = Host(self.controller, AsyncPipeSink(self.controller))
        self.stopping = rig.stopping
        self.args = rig.args


def ext_handle_of(rig: rig_common.Rig, address: str) -> int | None:
    """EXT's connection handle (the one Vigil sees) for the peer at `address`."""
    for connection in rig.ext.le_connections.values():
        if str(connection.peer_address).split("/")[0].upper() == address.upper():
            return connection.handle
    return None


class HostilePeripheral:
    """An HRS-looking peripheral (so Vigil can be configured to connect to it) whose misdeeds
    are the scenario's; `Vigil Bad` + the scenario in its name."""

    def __init__(self, args: argparse.Namespace, rig: rig_common.Rig, address: str) -> None:
        self.args = args
        self.rig = rig
        self.address = address
        self.peripheral = Peripheral(rig, "HOSTILE")
        config = DeviceConfiguration()
        config.name = "Vigil Bad"
        config.address = hci.Address(address, hci.Address.RANDOM_DEVICE_ADDRESS)
        config.advertising_data = bytes(AdvertisingData([
            data_types.Flags(AdvertisingData.Flags.LE_GENERAL_DISCOVERABLE_MODE
                             | AdvertisingData.Flags.BR_EDR_NOT_SUPPORTED),
            data_types.CompleteListOf16BitServiceUUIDs([gatt.GATT_HEART_RATE_SERVICE]),
            data_types.CompleteLocalName("Vigil Bad"),
        ]))
        config.scan_response_data = b""
        config.advertising_interval_min = 100
        config.advertising_interval_max = 100
        self.device = Device(config=config, host=self.peripheral.host)
        self.device.keystore = MemoryKeyStore()
        props = gatt.Characteristic.Properties
        self.hrm = gatt.Characteristic(gatt.GATT_HEART_RATE_MEASUREMENT_CHARACTERISTIC,
                                       props.NOTIFY, 0, b"")
        self.location = gatt.Characteristic(gatt.GATT_BODY_SENSOR_LOCATION_CHARACTERISTIC,
                                            props.READ, att.Attribute.READABLE, bytes([1]))
        self.device.add_services([gatt.Service(gatt.GATT_HEART_RATE_SERVICE,
                                               [self.hrm, self.location])])
        self.device.on(Device.EVENT_CONNECTION, self.on_connection)
        self.tasks: list[asyncio.Task] = []
        self.counts: dict[str, int] = {}

    def log(self, kind: str, **fields) -> None:
        emit({"hostile": kind, "address": self.address, **fields})

    def count(self, kind: str, n: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + n

    def on_connection(self, connection: Connection) -> None:
        self.log("connected", handle=connection.handle)
        connection.on(connection.EVENT_DISCONNECTION, lambda reason: self.log(
            "disconnected", reason=int(reason), counts=dict(self.counts)))
        self.tasks.append(asyncio.get_running_loop().create_task(self.attack(connection)))

    def send_att(self, connection: Connection, pdu: bytes) -> None:
        self.device.host.send_l2cap_pdu(connection.handle, ATT_CID, pdu)

    def alive(self, connection: Connection) -> bool:
        return connection.handle in self.device.connections and not self.rig.stopping.is_set()

    async def attack(self, connection: Connection) -> None:  # overridden
        pass

    async def start(self) -> None:
        await self.device.power_on()
        await self.device.start_advertising(auto_restart=True)

    def stop(self) -> None:
        for task in self.tasks:
            task.cancel()


class Flooder(HostilePeripheral):
    async def attack(self, connection: Connection) -> None:
        await asyncio.sleep(self.args.attack_delay)
        loop = asyncio.get_running_loop()
        end = loop.time() + self.args.attack_seconds
        self.log("flood-start")
        n = 0
        while self.alive(connection) and loop.time() < end:
            # A burst, then yield: Bumble's queue has no bound, and the legitimate devices in
            # this same process must still get the event loop.
            for _ in range(20):
                bpm = 60 + n % 100
                self.send_att(connection, bytes([0x1B]) + u16(self.hrm.handle) + bytes([0x00, bpm]))
                n += 1
            # Handles never subscribed (Body Sensor Location), and past the end of the database.
            self.send_att(connection, bytes([0x1B]) + u16(self.location.handle) + b"\x01")
            self.send_att(connection, bytes([0x1B]) + u16(0x0F00) + b"\xde\xad")
            self.send_att(connection, bytes([0x1D]) + u16(0x0F01) + b"\xbe\xef")
            self.count("measurements", 20)
            self.count("unsubscribed", 3)
            await asyncio.sleep(0.002)
        self.log("flood-end", counts=dict(self.counts))


class UnsolicitedResponder(HostilePeripheral):
    def __init__(self, *a, **k) -> None:
        super().__init__(*a, **k)
        server = self.device.gatt_server
        original = server.on_gatt_pdu

        def on_gatt_pdu(connection: Connection, pdu: att.ATT_PDU) -> None:
            # Vol 3 Part F 3.4.5.2: a Write Request is answered by a Write Response (0x13);
            # this peer answers with a Read Response (0x0B) instead.
            if pdu.op_code == att.Opcode.ATT_WRITE_REQUEST:
                self.log("read-response-for-write", handle=pdu.attribute_handle)
                self.send_att(connection, b"\x0B\x01\x00")
                return
            original(connection, pdu)
        server.on_gatt_pdu = on_gatt_pdu

    async def attack(self, connection: Connection) -> None:
        await asyncio.sleep(self.args.attack_delay)
        unsolicited = [
            ("read-response", b"\x0B\x2a"),
            ("write-response", b"\x13"),
            ("exchange-mtu-response", b"\x03" + u16(517)),
            ("read-by-group-type-response", b"\x11\x06" + u16(1) + u16(0xFFFF) + u16(0x180D)),
            ("find-information-response", b"\x05\x01" + u16(3) + u16(0x2902)),
            ("error-response", b"\x01\x0A" + u16(1) + b"\x0A"),
            ("read-blob-response", b"\x0D" + b"\x00" * 10),
            ("handle-value-confirmation", b"\x1E"),
            ("unknown-opcode", b"\xF3\x00"),
            ("empty-pdu", b""),
        ]
        loop = asyncio.get_running_loop()
        end = loop.time() + self.args.attack_seconds
        while self.alive(connection) and loop.time() < end:
            for kind, pdu in unsolicited:
                self.send_att(connection, pdu)
                self.count(kind)
            await asyncio.sleep(0.05)
        self.log("unsolicited-end", counts=dict(self.counts))


class L2capLiar(HostilePeripheral):
    def inject(self, handle: int, pb_flag: int, data: bytes, kind: str) -> None:
        # EXT's controller -> host path: exactly what a controller would hand to Vigil.
        self.rig.ext.send_hci_packet(hci.HCI_AclDataPacket(handle, pb_flag, 0, len(data), data))
        self.count(kind)

    async def attack(self, connection: Connection) -> None:
        await asyncio.sleep(self.args.attack_delay)
        handle = ext_handle_of(self.rig, self.address)
        if handle is None:
            self.log("no-ext-handle")
            return
        self.log("l2cap-lies-start", extHandle=handle, bpm=0x50)
        hrm = bytes([0x1B]) + u16(self.hrm.handle) + b"\x00\x50"
        loop = asyncio.get_running_loop()
        end = loop.time() + self.args.attack_seconds
        while self.alive(connection) and loop.time() < end and ext_handle_of(self.rig, self.address) == handle:
            # Basic header length (Vol 3 Part A 3.1) smaller than the payload.
            self.inject(handle, 2, u16(2) + u16(ATT_CID) + hrm, "length-too-short")
            # Larger than the payload, so the frame never completes; then a whole frame (a
            # valid notification, 80 bpm) in the next start, which must still be delivered.
            self.inject(handle, 2, u16(len(hrm) + 40) + u16(ATT_CID) + hrm, "length-too-long")
            self.inject(handle, 2, u16(len(hrm)) + u16(ATT_CID) + hrm, "complete-after-pending")
            # A continuation without a start, start fragments shorter than the basic header
            # (and an empty one), a frame longer than any Vigil accepts.
            self.inject(handle, 1, b"\x00\x11\x22", "continuation-without-start")
            self.inject(handle, 2, b"\x05\x00", "header-too-short")
            self.inject(handle, 2, b"", "empty-start")
            self.inject(handle, 2, u16(0xFFFF) + u16(ATT_CID) + hrm, "frame-too-long")
            # LE signaling (Vol 3 Part A 4): Connection Parameter Update Request whose command
            # length says 8 but carries 4, one that says 2 but carries 8, and a command with
            # no header at all.
            self.inject(handle, 2, u16(8) + u16(SIGNALING_CID) + b"\x12\x07" + u16(8) + u16(6) + u16(12),
                        "signaling-length-too-long")
            self.inject(handle, 2, u16(12) + u16(SIGNALING_CID) + b"\x12\x08" + u16(2) + u16(6) + u16(12) + u16(0) + u16(500),
                        "signaling-length-too-short")
            self.inject(handle, 2, u16(1) + u16(SIGNALING_CID) + b"\x12", "signaling-truncated")
            # ACL fragments that never complete: a start (3 of 30 bytes) and one continuation,
            # then again a whole notification that must get through.
            self.inject(handle, 2, u16(30) + u16(ATT_CID) + hrm[:3], "fragment-never-completed")
            self.inject(handle, 1, hrm[3:], "continuation-still-short")
            self.inject(handle, 2, u16(len(hrm)) + u16(ATT_CID) + hrm, "complete-after-pending")
            # ACL data for a handle no connection has.
            self.inject(0x0EFE, 2, u16(len(hrm)) + u16(ATT_CID) + hrm, "unknown-handle")
            await asyncio.sleep(0.05)
        self.log("l2cap-lies-end", counts=dict(self.counts))


class OversizedNotifier(HostilePeripheral):
    def __init__(self, *a, **k) -> None:
        super().__init__(*a, **k)
        # Keep ATT_MTU at the default 23 (Vol 3 Part F 3.2.8): whatever Vigil asks for.
        self.device.gatt_server.max_mtu = 23

    async def attack(self, connection: Connection) -> None:
        await asyncio.sleep(self.args.attack_delay)
        loop = asyncio.get_running_loop()
        end = loop.time() + self.args.attack_seconds
        while self.alive(connection) and loop.time() < end:
            for size in (20, 21, 22, 64, 200):
                # A Heart Rate Measurement with u8 BPM and RR intervals (flags 0x10) padding it
                # to `size` bytes: 20 is all ATT_MTU - 3 allows in a notification (a legal
                # control value, 77 bpm and 9 RR intervals), the others are more.
                value = bytes([0x10, 77]) + bytes(size - 2)
                self.send_att(connection, bytes([0x1B]) + u16(self.hrm.handle) + value)
                self.count(f"value-{size}")
            self.send_att(connection, bytes([0x1B]) + u16(self.hrm.handle))
            self.count("value-0")
            self.send_att(connection, bytes([0x1D]) + u16(self.hrm.handle))
            self.count("indication-0")
            await asyncio.sleep(0.05)
        self.log("oversized-end", counts=dict(self.counts))


class BadPairer(HostilePeripheral):
    def __init__(self, *a, **k) -> None:
        super().__init__(*a, **k)
        self.smp = MisbehavingSecurityManager(self, self.args.pairing_faults.split(","))
        self.device.smp_manager.on_smp_pdu = self.smp.on_smp_pdu
        server = self.device.gatt_server

        def write(bearer, value: bytes) -> None:
            # Like the legitimate rigs' protected CCCDs: pair first (Insufficient Authentication).
            if not bearer.encryption:
                self.log("cccd-refused")
                raise att.ATT_Error(error_code=0x05)
            server.write_cccd(bearer, self.hrm, value)

        self.hrm.descriptors = []
        cccd = gatt.Descriptor(gatt.GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR,
                               att.Attribute.READABLE | att.Attribute.WRITEABLE,
                               att.AttributeValueV2(read=lambda bearer: server.read_cccd(bearer, self.hrm),
                                                    write=write))
        self.hrm.descriptors = [cccd]


class GarbageAdvertisers:
    """`count` advertisers that exist only as LE Advertising Reports from EXT while it scans."""

    def __init__(self, args: argparse.Namespace, rig: rig_common.Rig) -> None:
        self.args = args
        self.rig = rig
        self.sent = 0

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        end = None
        index = 0
        while not self.rig.stopping.is_set():
            await asyncio.sleep(self.args.garbage_every / self.args.advertisers * 10)
            if not self.rig.ext.le_scan_enable or self.rig.hci_server.writer is None:
                continue
            if end is None:
                await asyncio.sleep(self.args.attack_delay)
                end = loop.time() + self.args.attack_seconds
                emit({"hostile": "garbage-start", "advertisers": self.args.advertisers})
            if loop.time() >= end:
                break
            for _ in range(10):
                n = index % self.args.advertisers
                address = bytes([n, 0xAD, 0xAD, 0x00, 0xBA, 0xC7])  # little-endian C7:BA:00:AD:AD:nn
                data = garbage_advertising_data(index)
                # HCI LE Advertising Report (Vol 4 Part E 7.7.65.2): one report, ADV_IND,
                # random address; the HCI framing is right, the AD inside is not.
                params = bytes([0x02, 1, 0x00, 0x01]) + address + bytes([len(data)]) + data + bytes([0xC4])
                self.rig.ext.send_hci_packet(hci.HCI_Packet.from_bytes(
                    bytes([hci.HCI_EVENT_PACKET, hci.HCI_LE_META_EVENT, len(params)]) + params))
                self.sent += 1
                index += 1
        emit({"hostile": "garbage-end", "reports": self.sent, "advertisers": self.args.advertisers})


def namespace_for_hrm(args: argparse.Namespace) -> SimpleNamespace:
    return SimpleNamespace(
        name="Vigil HRM", address=args.hrm_address, rate_hz=args.rate_hz, battery=87,
        battery_every=5, manufacturer="Vigil Test Rigs Ltd", advertising_interval_ms=100.0,
        require_encryption=False, legacy_reports=args.legacy_reports, verbose=args.verbose)


def namespace_for_dexcom(args: argparse.Namespace) -> SimpleNamespace:
    return SimpleNamespace(
        id=args.dexcom_id, answer_as=None, address=DEXCOM_ADDRESS, transmitter_age=1_000_000,
        session_age_minutes=args.dexcom_session_age_minutes, speed=args.dexcom_speed,
        readvertise_after=args.dexcom_readvertise_after, bad_crc=False, truncate_backfill=False,
        glucose_mgdl=args.dexcom_glucose_mgdl, drop_at=args.dexcom_drop_at)


def namespace_for_thermometer(args: argparse.Namespace) -> SimpleNamespace:
    return SimpleNamespace(name="Fridge", address=THERMOMETER_ADDRESS, key=None, every=1.0,
                           battery=93, temperature=None, counter_start=1000,
                           advertising_interval_ms=100.0)


HOSTILE_CLASSES = {
    "flood": Flooder,
    "unsolicited-att": UnsolicitedResponder,
    "l2cap-lies": L2capLiar,
    "oversized": OversizedNotifier,
    "pairing-failures": BadPairer,
}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rig_common.add_common_arguments(parser)
    parser.add_argument("--scenario", choices=SCENARIOS, default="none")
    parser.add_argument("--no-hrm", action="store_true", help="leave the legitimate HRM out")
    parser.add_argument("--hrm-address", default="C2:11:22:33:44:55")
    parser.add_argument("--rate-hz", type=float, default=5.0, help="legitimate HRM notifications/s")
    parser.add_argument("--with-dexcom", action="store_true", help="also serve the legitimate Dexcom G6")
    parser.add_argument("--dexcom-id", default="8G12AB")
    parser.add_argument("--dexcom-speed", type=float, default=60.0)
    parser.add_argument("--dexcom-session-age-minutes", type=int, default=30)
    parser.add_argument("--dexcom-readvertise-after", type=float, default=1.0)
    parser.add_argument("--dexcom-glucose-mgdl", type=int,
                        help="serve this glucose for every reading (e.g. 50: urgent low)")
    parser.add_argument("--dexcom-drop-at", default="",
                        help="comma-separated handshake steps where the Dexcom drops the link once "
                             "(see dexcom_g6.py --drop-at)")
    parser.add_argument("--attack-delay", type=float, default=1.0,
                        help="seconds after the hostile connection (or the scan) before the attack")
    parser.add_argument("--attack-seconds", type=float, default=4.0, help="how long the attack lasts")
    parser.add_argument("--pairing-faults", default="reject-request,fail-after-public-key,wrong-confirm",
                        help="one SMP misdeed per pairing attempt, in order, then again from the "
                             "start: reject-request, fail-after-public-key, wrong-confirm, silent")
    parser.add_argument("--advertisers", type=int, default=100)
    parser.add_argument("--garbage-every", type=float, default=0.2,
                        help="seconds between two reports of the same garbage advertiser")
    args = parser.parse_args()
    rig_common.setup_logging(args.verbose)

    rig = rig_common.Rig(args, "hostile-peers")
    rig.install_lifecycle()
    # `address`/`name`: the legitimate HRM's (or the Dexcom's), for harness code written
    # for the single-device rigs.
    info = {"rig": "hostile-peers", "scenario": args.scenario,
            "address": DEXCOM_ADDRESS if args.no_hrm else args.hrm_address,
            "name": "Dexcom" + args.dexcom_id[-2:] if args.no_hrm else "Vigil HRM",
            "bumble": importlib.metadata.version("bumble")}
    starters = []
    hrm = None
    if not args.no_hrm:
        hrm = heart_rate_monitor.HeartRateMonitor(namespace_for_hrm(args), rig)
        info["hrm"] = {"address": args.hrm_address, "name": "Vigil HRM"}
    dexcom = None
    if args.with_dexcom:
        dexcom = dexcom_g6.Transmitter(namespace_for_dexcom(args), Peripheral(rig, "DEXCOM"))
        info["dexcom"] = {"address": DEXCOM_ADDRESS, "id": dexcom.id, "name": dexcom.name}
    hostile = None
    if args.scenario in HOSTILE_CLASSES:
        hostile = HOSTILE_CLASSES[args.scenario](args, rig, HOSTILE_ADDRESS)
        info["hostile"] = {"address": HOSTILE_ADDRESS, "name": "Vigil Bad"}
    thermometer = None
    garbage = None
    if args.scenario == "garbage-advertisers":
        thermometer = bthome_thermometer.Thermometer(namespace_for_thermometer(args),
                                                     Peripheral(rig, "FRIDGE"))
        info["thermometer"] = {"address": THERMOMETER_ADDRESS, "name": "Fridge"}
        garbage = GarbageAdvertisers(args, rig)
        info["garbage"] = {"advertisers": args.advertisers}

    port = await rig.start_hci_server()
    emit({**info, "port": port})
    tasks = []
    loop = asyncio.get_running_loop()
    if hrm is not None:
        await hrm.device.power_on()
        await hrm.device.start_advertising(auto_restart=True)
        tasks.append(loop.create_task(hrm.notify_forever()))
    if dexcom is not None:
        await dexcom.device.power_on()
        await dexcom.device.start_advertising(auto_restart=False)
    if hostile is not None:
        await hostile.start()
    if thermometer is not None:
        await thermometer.device.power_on()
        await thermometer.advertise_next()
        tasks.append(loop.create_task(thermometer.run_forever()))
    if garbage is not None:
        tasks.append(loop.create_task(garbage.run()))
    rig.ready(port)
    await rig.wait_until_stopped()
    for task in tasks:
        task.cancel()
    if hostile is not None:
        hostile.stop()
    if dexcom is not None and dexcom.readvertising is not None:
        dexcom.readvertising.cancel()


if __name__ == "__main__":
    os.environ.setdefault("PYTHONDONTWRITEBYTECODE", "1")
    asyncio.run(main())
