#!/usr/bin/env python3
"""Simulated Bluetooth LE heart-rate monitor: an independent peer for Vigil's interop tests.

One process: a Bumble LocalLink with controller EXT (H4 over TCP, what Vigil connects to with
`--hci tcp:127.0.0.1:PORT`) and a peripheral (controller PERIPH + Bumble Host + Device) that
advertises and serves:

- Heart Rate 0x180D (HRS 1.0): Heart Rate Measurement 0x2A37 (notify), Body Sensor Location
  0x2A38 (read, 1 = chest), Heart Rate Control Point 0x2A39 (write; 0x01 resets Energy
  Expended, anything else -> ATT error 0x80 "Control Point Not Supported", HRS 1.0 3.3.1);
- Battery 0x180F (BAS 1.0): Battery Level 0x2A19 (read + notify);
- Device Information 0x180A (DIS 1.1): manufacturer, model, serial, firmware, hardware and
  software revision strings, System ID 0x2A23 and PnP ID 0x2A50.

The measurement encoding below is written from the GATT XML definition of 0x2A37 (flags bit 0
u16 BPM, bits 1-2 sensor contact, bit 3 Energy Expended u16 kJ, bit 4 RR intervals u16 in
1/1024 s) and deliberately does NOT use Bumble's HeartRateService profile, so the bytes Vigil
decodes are fixed by this file and logged, not chosen by a library.

stdout: `{"rig":...}` once, `READY <port>` once advertising, then NDJSON lines:
  {"sent":"hrm","peer":ADDR,"hex":..,"bpm":..,"contact":"detected|not-detected|unsupported",
   "energyExpended":..(if present),"rrIntervals":[s..](if present),"rrRaw":[1/1024 s..]}
  {"sent":"battery","peer":ADDR,"hex":..,"percent":..}
  {"event":"connected"|"disconnected"|"paired"|"pairing-failed"|"encrypted"|"subscribed"|...}

Example: heart_rate_monitor.py --port 0 --rate-hz 4 --require-encryption
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import struct
import sys
from dataclasses import dataclass

from bumble import att, data_types, gatt, hci
from bumble.core import UUID, AdvertisingData
from bumble.device import Connection, Device, DeviceConfiguration
from bumble.keys import MemoryKeyStore
from bumble.pairing import PairingConfig, PairingDelegate

sys.dont_write_bytecode = True  # keep Tests/Rigs free of __pycache__
import rig_common  # noqa: E402
from rig_common import emit

# Appearance 0x0340 (832): Generic Heart Rate Sensor (Assigned Numbers 2.6.2, category 0x00D).
APPEARANCE_HEART_RATE_SENSOR = 832

# HRS 1.0 3.3.1: ATT application error for an unsupported Control Point value.
HRCP_NOT_SUPPORTED = 0x80
HRCP_RESET_ENERGY_EXPENDED = 0x01

# Core v5.4 Vol 3 Part F 3.4.1.1 error codes; chosen like Zephyr does: no bond -> pair first
# (Insufficient Authentication), bond present but link clear -> encrypt (Insufficient Encryption).
ATT_INSUFFICIENT_AUTHENTICATION = 0x05
ATT_INSUFFICIENT_ENCRYPTION = 0x0F

CONTACT_BITS = {"unsupported": 0, "unsupported-bit1": 1, "not-detected": 2, "detected": 3}


@dataclass(frozen=True)
class Shape:
    """One combination of Heart Rate Measurement flags the rig cycles through."""
    wide_bpm: bool
    contact: str  # key of CONTACT_BITS
    energy: bool
    rr_count: int


# Covers u8/u16 BPM, all four contact encodings (0 and 1 both mean "not supported"), energy
# on/off and 0..8 RR intervals. Every shape fits a 20-byte notification (default ATT_MTU 23).
SHAPES: tuple[Shape, ...] = (
    Shape(False, "unsupported", False, 0),
    Shape(False, "detected", False, 1),
    Shape(False, "not-detected", True, 0),
    Shape(True, "detected", True, 2),
    Shape(False, "unsupported-bit1", False, 3),
    Shape(True, "not-detected", False, 0),
    Shape(False, "detected", True, 8),
    Shape(True, "detected", False, 4),
    Shape(True, "unsupported", True, 7),
)


def encode_measurement(bpm: int, shape: Shape, energy_kj: int, rr_raw: list[int]) -> bytes:
    flags = (0x01 if shape.wide_bpm else 0) | (CONTACT_BITS[shape.contact] << 1)
    flags |= 0x08 if shape.energy else 0
    flags |= 0x10 if rr_raw else 0
    out = bytearray([flags])
    out += struct.pack("<H", bpm) if shape.wide_bpm else bytes([bpm])
    if shape.energy:
        out += struct.pack("<H", energy_kj)
    for rr in rr_raw:
        out += struct.pack("<H", rr)
    return bytes(out)


class HeartRateMonitor:
    def __init__(self, args: argparse.Namespace, rig: rig_common.Rig) -> None:
        self.args = args
        self.rig = rig
        self.sequence = 0
        self.energy_kj = 100
        self.battery = args.battery
        # Serialises build -> send -> log, so the log order is the order on the air even when
        # the first-on-subscribe send and the periodic one meet.
        self.send_lock = asyncio.Lock()
        self.info = {
            "manufacturer": args.manufacturer,
            "model": "VHR-1",
            "serial": "VGL-0001-HRM",
            "firmware": "1.4.2",
            "hardware": "rev C",
            "software": "bumble " + importlib.metadata.version("bumble"),
            # DIS 2A23: u40 manufacturer-defined identifier, then u24 OUI, little-endian.
            "systemId": bytes.fromhex("0102030405" + "563412").hex(),
            # DIS 2A50: source 1 (Bluetooth SIG company ID), vendor 0x05F1, product 0x1234,
            # version 0x0110.
            "pnpId": (bytes([1]) + struct.pack("<HHH", 0x05F1, 0x1234, 0x0110)).hex(),
        }

        config = DeviceConfiguration()
        config.name = args.name
        config.address = hci.Address(args.address, hci.Address.RANDOM_DEVICE_ADDRESS)
        config.advertising_data = self.advertising_data()
        config.scan_response_data = b""
        config.advertising_interval_min = args.advertising_interval_ms
        config.advertising_interval_max = args.advertising_interval_ms
        self.device = Device(config=config, host=rig.host)
        # Bonds in memory only: Bumble's JsonKeyStore would write under the user's home.
        self.device.keystore = MemoryKeyStore()
        self.device.pairing_config_factory = lambda _connection: PairingConfig(
            sc=True, mitm=False, bonding=True,
            delegate=PairingDelegate(io_capability=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT),
        )
        self.device.on(Device.EVENT_CONNECTION, self.on_connection)
        self.build_gatt()

    # -- advertising -------------------------------------------------------------------------
    def advertising_data(self) -> bytes:
        data = bytes(AdvertisingData([
            # LE General Discoverable | BR/EDR Not Supported (CSS v11 Part A 1.3).
            data_types.Flags(AdvertisingData.Flags.LE_GENERAL_DISCOVERABLE_MODE
                             | AdvertisingData.Flags.BR_EDR_NOT_SUPPORTED),
            data_types.CompleteListOf16BitServiceUUIDs(
                [gatt.GATT_HEART_RATE_SERVICE, gatt.GATT_BATTERY_SERVICE]),
            data_types.Appearance.from_int(APPEARANCE_HEART_RATE_SENSOR),
            data_types.CompleteLocalName(self.args.name),
        ]))
        if len(data) > 31:
            sys.exit(f"advertising data is {len(data)} bytes (> 31): shorten --name")
        return data

    # -- GATT database -----------------------------------------------------------------------
    def protected_cccd(self, characteristic: gatt.Characteristic) -> gatt.Descriptor:
        """A CCCD that refuses writes on an unencrypted link (for --require-encryption)."""
        server = self.device.gatt_server

        def write(bearer, value: bytes) -> None:
            connection = bearer
            if not connection.encryption:
                bonded = str(connection.peer_address) in self.device.keystore.all_keys
                code = ATT_INSUFFICIENT_ENCRYPTION if bonded else ATT_INSUFFICIENT_AUTHENTICATION
                emit({"event": "cccd-refused", "peer": str(connection.peer_address),
                      "characteristic": characteristic.uuid.to_hex_str(), "attError": code})
                raise att.ATT_Error(error_code=code)
            server.write_cccd(bearer, characteristic, value)

        return gatt.Descriptor(
            gatt.GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR,
            att.Attribute.READABLE | att.Attribute.WRITEABLE,
            att.AttributeValueV2(read=lambda bearer: server.read_cccd(bearer, characteristic),
                                 write=write),
        )

    def build_gatt(self) -> None:
        props = gatt.Characteristic.Properties
        readable = att.Attribute.READABLE

        self.hrm = gatt.Characteristic(
            gatt.GATT_HEART_RATE_MEASUREMENT_CHARACTERISTIC, props.NOTIFY, 0, b"")
        self.hrcp = gatt.Characteristic(
            gatt.GATT_HEART_RATE_CONTROL_POINT_CHARACTERISTIC, props.WRITE,
            att.Attribute.WRITEABLE, gatt.CharacteristicValue(write=self.on_control_point))
        self.battery_level = gatt.Characteristic(
            gatt.GATT_BATTERY_LEVEL_CHARACTERISTIC, props.READ | props.NOTIFY, readable,
            gatt.CharacteristicValue(read=lambda _connection: bytes([self.battery])))
        if self.args.require_encryption:
            self.hrm.descriptors = [self.protected_cccd(self.hrm)]
            self.battery_level.descriptors = [self.protected_cccd(self.battery_level)]

        def text(uuid: UUID, value: str) -> gatt.Characteristic:
            return gatt.Characteristic(uuid, props.READ, readable, value.encode("utf-8"))

        info = self.info
        self.device.add_services([
            gatt.Service(gatt.GATT_HEART_RATE_SERVICE, [
                self.hrm,
                # Body Sensor Location 1 = Chest (gatt-xml body_sensor_location.xml).
                gatt.Characteristic(gatt.GATT_BODY_SENSOR_LOCATION_CHARACTERISTIC,
                                    props.READ, readable, bytes([1])),
                self.hrcp,
            ]),
            gatt.Service(gatt.GATT_BATTERY_SERVICE, [self.battery_level]),
            gatt.Service(gatt.GATT_DEVICE_INFORMATION_SERVICE, [
                text(gatt.GATT_MANUFACTURER_NAME_STRING_CHARACTERISTIC, info["manufacturer"]),
                text(gatt.GATT_MODEL_NUMBER_STRING_CHARACTERISTIC, info["model"]),
                text(gatt.GATT_SERIAL_NUMBER_STRING_CHARACTERISTIC, info["serial"]),
                text(gatt.GATT_FIRMWARE_REVISION_STRING_CHARACTERISTIC, info["firmware"]),
                text(gatt.GATT_HARDWARE_REVISION_STRING_CHARACTERISTIC, info["hardware"]),
                text(gatt.GATT_SOFTWARE_REVISION_STRING_CHARACTERISTIC, info["software"]),
                gatt.Characteristic(gatt.GATT_SYSTEM_ID_CHARACTERISTIC, props.READ, readable,
                                    bytes.fromhex(info["systemId"])),
                gatt.Characteristic(gatt.GATT_PNP_ID_CHARACTERISTIC, props.READ, readable,
                                    bytes.fromhex(info["pnpId"])),
            ]),
        ])
        self.hrm.on(gatt.Characteristic.EVENT_SUBSCRIPTION, lambda bearer, notify, indicate:
                    self.on_subscription(bearer, "2A37", notify, indicate))
        self.battery_level.on(gatt.Characteristic.EVENT_SUBSCRIPTION, lambda bearer, notify, indicate:
                              self.on_subscription(bearer, "2A19", notify, indicate))

    def on_control_point(self, connection: Connection, value: bytes) -> None:
        emit({"received": "hrcp", "peer": str(connection.peer_address), "hex": value.hex()})
        if value != bytes([HRCP_RESET_ENERGY_EXPENDED]):
            raise att.ATT_Error(error_code=HRCP_NOT_SUPPORTED)
        self.energy_kj = 0

    # -- connection life ---------------------------------------------------------------------
    def on_connection(self, connection: Connection) -> None:
        peer = str(connection.peer_address)
        emit({"event": "connected", "peer": peer, "handle": connection.handle})
        connection.on(connection.EVENT_DISCONNECTION, lambda reason: emit(
            {"event": "disconnected", "peer": peer, "reason": int(reason)}))
        connection.on(connection.EVENT_PAIRING, lambda keys: emit(
            {"event": "paired", "peer": peer, "secureConnections": bool(connection.sc),
             "bonded": keys is not None and any(
                 key is not None for key in (keys.ltk, keys.ltk_central, keys.ltk_peripheral))}))
        connection.on(connection.EVENT_PAIRING_FAILURE, lambda reason: emit(
            {"event": "pairing-failed", "peer": peer, "reason": int(reason)}))
        connection.on(connection.EVENT_CONNECTION_ENCRYPTION_CHANGE, lambda: emit(
            {"event": "encrypted" if connection.encryption else "encryption-off", "peer": peer}))
        connection.on(connection.EVENT_CONNECTION_ENCRYPTION_FAILURE, lambda error: emit(
            {"event": "encryption-failed", "peer": peer, "error": str(error)}))

    def on_subscription(self, bearer, uuid: str, notify: bool, indicate: bool) -> None:
        emit({"event": "subscribed", "peer": str(bearer.peer_address), "characteristic": uuid,
              "notify": notify, "indicate": indicate})
        if notify and uuid == "2A37":
            # First measurement right away: tests should not wait a whole period for it.
            asyncio.get_running_loop().create_task(self.send_measurement(bearer))

    def subscribed(self, connection: Connection, characteristic: gatt.Characteristic) -> bool:
        cccd = self.device.gatt_server.subscribers.get(connection, {}).get(characteristic.handle)
        return bool(cccd) and len(cccd) == 2 and cccd[0] & 0x01 != 0

    # -- notifications -----------------------------------------------------------------------
    def next_measurement(self) -> tuple[bytes, dict]:
        n = self.sequence
        self.sequence += 1
        shape = SHAPES[n % len(SHAPES)]
        bpm = 52 + (n * 37) % 120  # 52..171, a different value each step
        rr_raw = []
        for k in range(shape.rr_count):
            # Beat-to-beat interval near 60/bpm s with a little deterministic jitter.
            rr_raw.append(int(round(60 / bpm * 1024)) + ((n + k) % 5) * 3 - 6)
        self.energy_kj += 3
        value = encode_measurement(bpm, shape, self.energy_kj, rr_raw)
        record = {"bpm": bpm, "contact": shape.contact.removesuffix("-bit1")}
        if shape.energy:
            record["energyExpended"] = self.energy_kj
        if rr_raw:
            record["rrIntervals"] = [rr / 1024 for rr in rr_raw]
            record["rrRaw"] = rr_raw
        return value, record

    async def send_measurement(self, connection: Connection) -> None:
        async with self.send_lock:
            await self._send_measurement(connection)

    async def _send_measurement(self, connection: Connection) -> None:
        if connection.handle not in self.device.connections or not self.subscribed(connection, self.hrm):
            return
        value, record = self.next_measurement()
        await self.device.notify_subscriber(connection, self.hrm, value)
        emit({"sent": "hrm", "peer": str(connection.peer_address), "seq": self.sequence - 1,
              "hex": value.hex(), **record})
        if self.sequence % self.args.battery_every == 0:
            self.battery = max(1, self.battery - 1)
            if self.subscribed(connection, self.battery_level):
                value = bytes([self.battery])
                await self.device.notify_subscriber(connection, self.battery_level, value)
                emit({"sent": "battery", "peer": str(connection.peer_address),
                      "hex": value.hex(), "percent": self.battery})

    async def notify_forever(self) -> None:
        period = 1.0 / self.args.rate_hz
        while True:
            await asyncio.sleep(period)
            for connection in list(self.device.connections.values()):
                try:
                    await self.send_measurement(connection)
                except Exception as error:  # a dying link must not stop the rig
                    emit({"event": "notify-failed", "error": repr(error)})


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rig_common.add_common_arguments(parser)
    parser.add_argument("--name", default="Vigil HRM")
    parser.add_argument("--address", default="C2:11:22:33:44:55",
                        help="random static address of the peripheral")
    parser.add_argument("--rate-hz", type=float, default=1.0,
                        help="heart-rate notifications per second once subscribed")
    parser.add_argument("--battery", type=int, default=87, help="initial battery level, percent")
    parser.add_argument("--battery-every", type=int, default=5,
                        help="battery level drops by 1 and is notified every N measurements")
    parser.add_argument("--manufacturer", default="Vigil Test Rigs Ltd")
    parser.add_argument("--advertising-interval-ms", type=float, default=100.0)
    parser.add_argument("--require-encryption", action="store_true",
                        help="HR Measurement and Battery Level CCCDs need an encrypted link")
    args = parser.parse_args()
    if args.rate_hz <= 0 or args.battery_every <= 0 or not 0 <= args.battery <= 100:
        parser.error("--rate-hz and --battery-every must be > 0, --battery in 0..100")
    rig_common.setup_logging(args.verbose)

    rig = rig_common.Rig(args, "heart-rate-monitor")
    rig.install_lifecycle()
    hrm = HeartRateMonitor(args, rig)
    port = await rig.start_hci_server()
    emit({"rig": "heart-rate-monitor", "port": port, "address": args.address,
          "addressType": "random", "name": args.name, "appearance": APPEARANCE_HEART_RATE_SENSOR,
          "services": ["180D", "180F", "180A"], "requireEncryption": args.require_encryption,
          "legacyReports": args.legacy_reports, "deviceInformation": hrm.info,
          "bumble": importlib.metadata.version("bumble")})
    await hrm.device.power_on()
    await hrm.device.start_advertising(auto_restart=True)
    notifier = asyncio.get_running_loop().create_task(hrm.notify_forever())
    rig.ready(port)
    await rig.wait_until_stopped()
    notifier.cancel()


if __name__ == "__main__":
    asyncio.run(main())
