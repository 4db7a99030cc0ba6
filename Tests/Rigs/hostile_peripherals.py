"""The hostile peripherals of `hostile_peers.py`: each an HRS-looking Bumble Device on a
controller of its own, on the rig's link, that misbehaves in one way once connected. What each
one does is described in `hostile_peers.py`'s docstring and Tests/Rigs/README.md; every act is
logged as `{"hostile":KIND,"address":..,...}`.
"""

from __future__ import annotations

import argparse
import asyncio

from bumble import att, data_types, gatt, hci
from bumble.controller import Controller
from bumble.core import AdvertisingData
from bumble.device import Connection, Device, DeviceConfiguration
from bumble.host import Host
from bumble.keys import MemoryKeyStore
from bumble.transport.common import AsyncPipeSink

import rig_common
from hostile_smp import MisbehavingSecurityManager
from rig_common import emit, u16

ATT_CID = 0x0004
SIGNALING_CID = 0x0005


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


HOSTILE_CLASSES = {
    "flood": Flooder,
    "unsolicited-att": UnsolicitedResponder,
    "l2cap-lies": L2capLiar,
    "oversized": OversizedNotifier,
    "pairing-failures": BadPairer,
}
