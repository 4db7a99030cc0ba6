#!/usr/bin/env python3
"""Simulated MiaoMiao Libre 1 bridge: an independent peer for Vigil's interop tests.

One process: a Bumble LocalLink with controller EXT (H4 over TCP, what Vigil connects to with
`--hci tcp:127.0.0.1:PORT`) and a peripheral that advertises the name `miaomiao...` and serves
the Nordic UART Service (docs/protocols/miaomiao-bubble.md §MiaoMiao):

- 6E400001-B5A3-F393-E0A9-E50E24DCCA9E service;
- 6E400003-... notify: everything the bridge says;
- 6E400002-... write / write without response: commands from the central.

Behaviour (written from docs/protocols/miaomiao-bubble.md §MiaoMiao, not from any app's code):
- `F0` (start reading): the data packet at once, then every --interval-s seconds while
  subscribed. The packet is 0x28, total length big-endian, minute counter, sensor UID,
  battery %, firmware, hardware, the 344-byte FRAM, end marker 0x29 (and 6 patchInfo bytes with
  --patch-info), sent in notifications of at most 20 bytes (ATT_MTU 23 - 3).
- The FRAM is a REAL Libre 1 dump: xDrip NFCReaderXTest.java `data_libre1`
  (NightscoutFoundation/xDrip): CRCs 0x9945/0x2446/0x6A4F, state 3, age 4993 min.
- --libre2 example|example2: a MiaoMiao 2 carrying a European Libre 2 instead: the FRAM is a
  published ENCRYPTED dump (ivalkou/LibreTools `Libre2.Example` / `Example2`), sent as the sensor
  stores it with that sensor's UID and patchInfo (docs/protocols/libre2-fram.md §Test vectors:
  state 3, age 10320 / 3170 min once deciphered).
- `D3 01` (accept new sensor) is logged; the next `F0` then gets the packet.
- `D1 nn` (interval): answered `D1 01`.
Faults, for the driver's recovery paths:
- --new-sensor: the first F0 is answered with 0x32 (new sensor) instead of data;
- --no-sensor: every F0 is answered with 0x34;
- --stop-after N: the first packet stops after N bytes (the rest is never sent);
- --corrupt-first: the first packet's FRAM has one body byte flipped (body CRC fails).

stdout: `{"rig":...}` once, `READY <port>`, then NDJSON lines:
  {"received":"command","peer":..,"hex":..}
  {"sent":"packet","peer":..,"hex":<whole packet>,"notifications":n,"complete":bool,"corrupt":bool}
  {"sent":"message","peer":..,"hex":..}   (0x32, 0x34, D1 01)
  {"event":"connected"|"disconnected"|"subscribed"|...}

Example: miaomiao.py --port 0 --interval-s 10
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import sys

from bumble import att, data_types, gatt, hci
from bumble.core import UUID, AdvertisingData
from bumble.device import Connection, Device, DeviceConfiguration

import rig_common
from rig_common import emit

NUS_SERVICE = UUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
NUS_RX_NOTIFY = UUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")
NUS_TX_WRITE = UUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")

# xDrip app/src/test/java/com/eveningoutpost/dexdrip/NFCReaderXTest.java, data_libre1.
LIBRE1_FRAM = bytes.fromhex(
    "4599081b0300000000000000000000000000000000000000"
    "4624000cd30400009d80b80400005d80c10400109d80ce04"
    "00009d80d20400e89c80c90400dc5c80c30400c49c80c804"
    "008c5c80cb0400645c80cf0400405c80ea0400f85b802805"
    "00a85b803c0500805b804805009c5b80320500ec9b802b05"
    "00e05b80680400b057804a0300f49b80fd0200d09b800003"
    "00145c80420300585b80a00300fc9c80230400785d80ca04"
    "00949d80f804006c9d80780400d49d807204005c5c80c604"
    "00009d80860400089d80580400e09d80310400389e803304"
    "00e85b80b70400cc5a80a40400185a80dc0400fc5a80e104"
    "00905a808b0400d05980180400845980c203002459805b03"
    "009c58805b03007058807f0300405880e303009c5880ae04"
    "00bc58805d0500c41880a50500205880140500bc17808804"
    "00fc5780811301004f6a30084b0b5851140396805a00cda6"
    "147e1a0000f3c86b"
)
assert len(LIBRE1_FRAM) == 344

# ivalkou/LibreTools Sources/LibreTools/Sensor/Libre2.swift (read at 0ef03f7508f7), Libre2.Example
# and Example2: encrypted FRAM, sensor UID and patchInfo of two European Libre 2 sensors, and the
# sensor age docs/protocols/libre2-fram.md §Test vectors gives for the deciphered dump.
LIBRE2_DUMPS = {
    "example": {
        "uid": "9d81c20000a407e0", "patchInfo": "9d0830017317", "sensorAgeMinutes": 10320,
        "fram": (
            "069add798e9af4baa2554f31eae0473abd797b271ca286f85f041ccb1b524c77"
            "5262bdb79397200d499ed6a78f02b61645bc49db079fb3a9ed4f20bd25d320a6"
            "bf96ab3c8f8f016959c562fa01c9153840bf3a11c66c486a90fd136febbbf5d0"
            "ef3c91016b5eeec79d5df305049a1981834b10f0d276ac0e5031210b510beedc"
            "4e5552f5043f81fed6e9e1933a9914f70a2695230e3ba8e0a28d0948c95a3883"
            "96597e0260268c4e97c439372514f9c7a83b29d9f043c75da479ce64d67e28e7"
            "44044cca839a6250e3ed90357d850eaec45a4eeea3c7f94a4b387f3d62b49933"
            "5544eacc759ef5b928bae33269e79ba042b27ca2467766a1ea69fcc8c3caf612"
            "47bd967b696a69df74a08e651c972acc312c6ff5a142b21a636e888c87a7aba0"
            "dd7309e6694214c3acced7e26bfae0f106db8bfbbd6aa17c624ebaecc8371544"
            "ab39081bdd76ce5ee29b528f2cbaad56f8de9e61f19cfdfe")},
    "example2": {
        "uid": "df20be0000a407e0", "patchInfo": "9d0830017625", "sensorAgeMinutes": 3170,
        "fram": (
            "520bf344dca04321cc7dd74e29e282e3e704c9cf6c572c7da88210aad73219b3"
            "c79f395fe37a4508b709bc6efada3407b46568607ea504e665654813f89ca7c8"
            "70a74d9d523586f202cc9b9b7432ffc5bfe9781f46c2c70b0fb0c85423e20d44"
            "9744368fac12ae4a6ce137e2462b5c741b7afe674fccdd951773b325e9aba65e"
            "70e46cce568db9e5feaa503652d2c5222439d863086204adfa89001072cfa9f3"
            "474bf57096f28acaffefa39e1aec9f4a2fe8a9cae6c8744698b2a29e8df0af09"
            "c15b52597e00d33f59417b33eedb4051b23d9482f3b2e4caad3cd8c0d7d74c51"
            "caa3ad2624ab10ba6135e17f3d3fecb4cfe3a2316ae7d73618215b435a9c757c"
            "89e2496cb1716a476e8ae5b2c537e9e5ddb31237957ad01f73ebb815f1e65d51"
            "fb1688a69c17b0400ebbd7ca9dcd8b60888854fc657143e751e218ea631d5baa"
            "d1d3d708b7ed87c4b42431e7a0e6595193fda3e6bfe1f209")},
}
for _dump in LIBRE2_DUMPS.values():
    assert len(bytes.fromhex(_dump["fram"])) == 344

# Synthetic bridge header fields (no real MiaoMiao capture was available).
SENSOR_UID = bytes.fromhex("2c5e8b0000a407e0")
FIRMWARE = bytes.fromhex("0039")
HARDWARE = bytes.fromhex("0001")
MINUTE_COUNTER = bytes.fromhex("1381")
NOTIFICATION_SIZE = 20


def build_packet(fram: bytes, battery: int, patch_info: bytes | None, uid: bytes = SENSOR_UID) -> bytes:
    total = 363 + (len(patch_info) if patch_info else 0)
    body = (bytes([0x28]) + total.to_bytes(2, "big") + MINUTE_COUNTER + uid
            + bytes([battery]) + FIRMWARE + HARDWARE + fram + bytes([0x29]))
    return body + (patch_info or b"")


class MiaoMiao:
    def __init__(self, args: argparse.Namespace, rig: rig_common.Rig) -> None:
        self.args = args
        self.rig = rig
        self.first_f0_handled = False
        self.packets_sent = 0
        self.periodic: dict[int, asyncio.Task] = {}
        self.send_lock = asyncio.Lock()
        dump = LIBRE2_DUMPS.get(args.libre2)
        self.fram = bytes.fromhex(dump["fram"]) if dump else LIBRE1_FRAM
        self.uid = bytes.fromhex(dump["uid"]) if dump else SENSOR_UID
        self.patch_info = dump["patchInfo"] if dump else args.patch_info
        self.age_minutes = dump["sensorAgeMinutes"] if dump else 4993
        config = DeviceConfiguration()
        config.name = args.name
        config.address = hci.Address(args.address, hci.Address.RANDOM_DEVICE_ADDRESS)
        config.advertising_data = bytes(AdvertisingData([
            data_types.Flags(AdvertisingData.Flags.LE_GENERAL_DISCOVERABLE_MODE
                             | AdvertisingData.Flags.BR_EDR_NOT_SUPPORTED),
            data_types.CompleteLocalName(args.name),
        ]))
        config.scan_response_data = b""
        config.advertising_interval_min = args.advertising_interval_ms
        config.advertising_interval_max = args.advertising_interval_ms
        self.device = Device(config=config, host=rig.host)
        self.device.on(Device.EVENT_CONNECTION, self.on_connection)
        props = gatt.Characteristic.Properties
        self.rx = gatt.Characteristic(NUS_RX_NOTIFY, props.NOTIFY, 0, b"")
        self.tx = gatt.Characteristic(
            NUS_TX_WRITE, props.WRITE | props.WRITE_WITHOUT_RESPONSE, att.Attribute.WRITEABLE,
            gatt.CharacteristicValue(write=self.on_write))
        self.device.add_services([gatt.Service(NUS_SERVICE, [self.rx, self.tx])])
        self.rx.on(gatt.Characteristic.EVENT_SUBSCRIPTION, lambda bearer, notify, indicate: emit(
            {"event": "subscribed", "peer": str(bearer.peer_address), "notify": notify}))

    def on_connection(self, connection: Connection) -> None:
        peer = str(connection.peer_address)
        emit({"event": "connected", "peer": peer, "handle": connection.handle})

        def on_disconnection(reason) -> None:
            task = self.periodic.pop(connection.handle, None)
            if task:
                task.cancel()
            emit({"event": "disconnected", "peer": peer, "reason": int(reason)})

        connection.on(connection.EVENT_DISCONNECTION, on_disconnection)

    def on_write(self, connection: Connection, value: bytes) -> None:
        value = bytes(value)
        emit({"received": "command", "peer": str(connection.peer_address), "hex": value.hex()})
        loop = asyncio.get_running_loop()
        if value == b"\xf0":
            loop.create_task(self.on_start_reading(connection))
        elif len(value) == 2 and value[0] == 0xD1:
            loop.create_task(self.send_message(connection, bytes([0xD1, 0x01])))

    async def on_start_reading(self, connection: Connection) -> None:
        first = not self.first_f0_handled
        self.first_f0_handled = True
        if self.args.no_sensor:
            await self.send_message(connection, bytes([0x34]))
            return
        if first and self.args.new_sensor:
            await self.send_message(connection, bytes([0x32]))
            return
        await self.send_packet(connection)
        if connection.handle not in self.periodic:
            self.periodic[connection.handle] = asyncio.get_running_loop().create_task(
                self.every_interval(connection))

    async def every_interval(self, connection: Connection) -> None:
        while True:
            await asyncio.sleep(self.args.interval_s)
            try:
                await self.send_packet(connection)
            except Exception as error:  # a dying link must not stop the rig
                emit({"event": "notify-failed", "error": repr(error)})
                return

    async def send_message(self, connection: Connection, value: bytes) -> None:
        async with self.send_lock:
            await self.device.notify_subscriber(connection, self.rx, value)
            emit({"sent": "message", "peer": str(connection.peer_address), "hex": value.hex()})

    async def send_packet(self, connection: Connection) -> None:
        async with self.send_lock:
            if connection.handle not in self.device.connections:
                return
            first = self.packets_sent == 0
            self.packets_sent += 1
            fram = bytearray(self.fram)
            corrupt = first and self.args.corrupt_first
            if corrupt:
                fram[200] ^= 0x10
            patch_info = bytes.fromhex(self.patch_info) if self.patch_info else None
            packet = build_packet(bytes(fram), self.args.battery, patch_info, self.uid)
            limit = len(packet)
            if first and self.args.stop_after is not None:
                limit = min(limit, self.args.stop_after)
            sent = 0
            for start in range(0, limit, NOTIFICATION_SIZE):
                chunk = packet[start:min(start + NOTIFICATION_SIZE, limit)]
                await self.device.notify_subscriber(connection, self.rx, chunk)
                sent += 1
                await asyncio.sleep(self.args.notification_gap_ms / 1000)
            emit({"sent": "packet", "peer": str(connection.peer_address), "hex": packet[:limit].hex(),
                  "notifications": sent, "complete": limit == len(packet), "corrupt": corrupt})


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rig_common.add_common_arguments(parser)
    parser.add_argument("--name", default="miaomiao42")
    parser.add_argument("--address", default="C3:4D:49:41:4F:01",
                        help="random static address of the peripheral")
    parser.add_argument("--battery", type=int, default=87, help="bridge battery, percent")
    parser.add_argument("--interval-s", type=float, default=300.0,
                        help="seconds between packets after F0 (a real MiaoMiao: 300)")
    parser.add_argument("--notification-gap-ms", type=float, default=15.0,
                        help="pause between the notifications of one packet")
    parser.add_argument("--patch-info", metavar="HEX",
                        help="6 patchInfo bytes appended to the packet (newer firmware), e.g. df0000081a24")
    parser.add_argument("--libre2", choices=sorted(LIBRE2_DUMPS),
                        help="carry a published encrypted Libre 2 dump (with its UID and patchInfo) instead of the Libre 1")
    parser.add_argument("--new-sensor", action="store_true", help="answer the first F0 with 0x32")
    parser.add_argument("--no-sensor", action="store_true", help="answer every F0 with 0x34")
    parser.add_argument("--stop-after", type=int, metavar="BYTES",
                        help="the first packet stops after this many bytes")
    parser.add_argument("--corrupt-first", action="store_true",
                        help="flip one FRAM body byte in the first packet")
    parser.add_argument("--advertising-interval-ms", type=float, default=100.0)
    args = parser.parse_args()
    if not 0 <= args.battery <= 100 or args.interval_s <= 0:
        parser.error("--battery in 0..100, --interval-s > 0")
    if args.patch_info and len(bytes.fromhex(args.patch_info)) != 6:
        parser.error("--patch-info needs 6 bytes")
    rig_common.setup_logging(args.verbose)

    rig = rig_common.Rig(args, "miaomiao")
    rig.install_lifecycle()
    await serve_bridge(rig, MiaoMiao(args, rig), args, "miaomiao", FIRMWARE.hex(), HARDWARE.hex())


async def serve_bridge(rig, bridge, args, kind: str, firmware: str, hardware: str) -> None:
    """Runs a Libre bridge rig (this one or bubble.py): announces it, advertises, serves until
    stopped."""
    port = await rig.start_hci_server()
    emit({"rig": kind, "port": port, "address": args.address, "addressType": "random",
          "name": args.name, "services": [str(NUS_SERVICE)], "legacyReports": args.legacy_reports,
          "sensorUID": bridge.uid.hex(), "battery": args.battery, "firmware": firmware,
          "hardware": hardware, "fram": bridge.fram.hex(), "sensorAgeMinutes": bridge.age_minutes,
          "libre2": args.libre2, "patchInfo": bridge.patch_info, "bumble": importlib.metadata.version("bumble")})
    await bridge.device.power_on()
    await bridge.device.start_advertising(auto_restart=True)
    rig.ready(port)
    await rig.wait_until_stopped()
    for task in bridge.periodic.values():
        task.cancel()


if __name__ == "__main__":
    asyncio.run(main())
