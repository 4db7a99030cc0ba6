#!/usr/bin/env python3
"""Simulated BTHome v2 fridge thermometer: an independent broadcaster for Vigil's interop tests.

One process: a Bumble LocalLink with controller EXT (H4 over TCP, what Vigil connects to with
`--hci tcp:127.0.0.1:PORT`) and a peripheral (controller PERIPH + Bumble Host + Device) that only
advertises, non-connectable (ADV_NONCONN_IND), like a real BTHome sensor. (Bumble 0.0.236's
controller reports every advertisement as ADV_IND whatever the type, so a scanner on this rig
sees "connectable" reports: Vigil must not rely on the connectable bit to find broadcasters.) Every `--every`
seconds it takes a new "measurement" and replaces its advertising data.

Service data for UUID 0xFCD2 (AD type 0x16), written here from the BTHome v2 format as
docs/protocols/bthome.md describes it, not with a BTHome library:
- byte 0, device information: 0x40 (v2, plain) or 0x41 (v2, encrypted, with --key);
- objects in ascending ID order: 0x00 packet id (u8), 0x01 battery % (u8), 0x02 temperature
  (s16, 0.01 degC), 0x03 humidity (u16, 0.01 %);
- with --key: AES-128-CCM (Python `cryptography` AESCCM, 4-byte tag) of the objects, then the
  counter (u32 little-endian) and the MIC; nonce = MAC (most significant byte first) + D2 FC +
  device-information byte + counter bytes. No associated data.

stdout: `{"rig":...}` once, `READY <port>` once advertising, then one NDJSON line per
measurement:
  {"sent":"bthome","hex":SERVICE_DATA_HEX,"advertisingData":AD_HEX,"packetId":..,
   "temperature":..,"humidity":..,"battery":..,"encrypted":bool,"counter":..(if encrypted)}

Example: bthome_thermometer.py --port 0 --every 1 --key 231d39c1d7cc1ab1aee224cd096db932
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
import struct
import sys

from bumble import hci
from bumble.device import AdvertisingType, Device, DeviceConfiguration
from cryptography.hazmat.primitives.ciphers.aead import AESCCM

import rig_common
from rig_common import emit

BTHOME_UUID = 0xFCD2
AD_FLAGS = 0x01
AD_COMPLETE_NAME = 0x09
AD_SERVICE_DATA_16 = 0x16


def ad_structure(ad_type: int, payload: bytes) -> bytes:
    return bytes([len(payload) + 1, ad_type]) + payload


def objects(packet_id: int, battery: int, temperature_centi: int, humidity_centi: int) -> bytes:
    return (bytes([0x00, packet_id & 0xFF, 0x01, battery])
            + b"\x02" + struct.pack("<h", temperature_centi)
            + b"\x03" + struct.pack("<H", humidity_centi))


def service_data(payload: bytes, mac_msb_first: bytes, key: bytes | None, counter: int) -> bytes:
    if key is None:
        return bytes([0x40]) + payload
    info = 0x41
    counter_bytes = struct.pack("<I", counter)
    nonce = mac_msb_first + struct.pack("<H", BTHOME_UUID) + bytes([info]) + counter_bytes
    sealed = AESCCM(key, tag_length=4).encrypt(nonce, payload, None)
    return bytes([info]) + sealed[:-4] + counter_bytes + sealed[-4:]


def advertising_data(data: bytes, name: str) -> bytes:
    ad = ad_structure(AD_SERVICE_DATA_16, struct.pack("<H", BTHOME_UUID) + data)
    # The name before the flags, which a non-connectable advertiser may leave out: encrypted
    # packets leave room for only one of them.
    if len(ad) + 2 + len(name.encode()) <= 31:
        ad += ad_structure(AD_COMPLETE_NAME, name.encode())
    if len(ad) + 3 <= 31:
        ad += ad_structure(AD_FLAGS, bytes([0x06]))  # LE General Discoverable, no BR/EDR
    return ad


class Thermometer:
    def __init__(self, args: argparse.Namespace, rig: rig_common.Rig) -> None:
        self.args = args
        self.key = bytes.fromhex(args.key) if args.key else None
        self.mac = bytes.fromhex(args.address.replace(":", ""))  # as printed: MSB first
        self.measurement = 0
        config = DeviceConfiguration()
        config.name = args.name
        config.address = hci.Address(args.address, hci.Address.RANDOM_DEVICE_ADDRESS)
        config.advertising_interval_min = args.advertising_interval_ms
        config.advertising_interval_max = args.advertising_interval_ms
        self.device = Device(config=config, host=rig.host)

    def values(self) -> tuple[int, int, int]:
        """Temperature (centi-degC), humidity (centi-%), battery (%) of this measurement: a
        fridge cycling 2.50 -> 5.50 -> 2.50 degC, one step of 0.25 degC per measurement, so
        consecutive readings always differ; --temperature pins it for tests."""
        if self.args.temperature is not None:
            temperature = round(self.args.temperature * 100)
        else:
            step = self.measurement % 24
            temperature = 250 + 25 * (step if step <= 12 else 24 - step)
        humidity = 5500 - (temperature - 250) * 1000 // 300
        battery = max(0, self.args.battery - self.measurement // 100)
        return temperature, humidity, battery

    async def advertise_next(self) -> None:
        temperature, humidity, battery = self.values()
        packet_id = self.measurement & 0xFF
        payload = objects(packet_id, battery, temperature, humidity)
        counter = self.args.counter_start + self.measurement
        data = service_data(payload, self.mac, self.key, counter)
        ad = advertising_data(data, self.args.name)
        if len(ad) > 31:
            sys.exit(f"advertising data is {len(ad)} bytes (> 31)")
        if self.device.is_advertising:
            await self.device.stop_advertising()
        await self.device.start_advertising(advertising_type=AdvertisingType.UNDIRECTED,
                                            advertising_data=ad, scan_response_data=b"")
        record = {"sent": "bthome", "hex": data.hex(), "advertisingData": ad.hex(),
                  "packetId": packet_id, "temperature": temperature / 100,
                  "humidity": humidity / 100, "battery": battery, "encrypted": self.key is not None}
        if self.key is not None:
            record["counter"] = counter
        emit(record)
        self.measurement += 1

    async def run_forever(self) -> None:
        while True:
            await asyncio.sleep(self.args.every)
            try:
                await self.advertise_next()
            except Exception as error:  # the rig keeps going; the log says why
                emit({"event": "advertise-failed", "error": repr(error)})


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rig_common.add_common_arguments(parser)
    parser.add_argument("--name", default="Fridge")
    parser.add_argument("--address", default="C4:11:22:33:44:66",
                        help="random static address of the thermometer (also the nonce's MAC)")
    parser.add_argument("--key", help="32 hex digits: encrypt with this BTHome bind key")
    parser.add_argument("--every", type=float, default=2.0, help="seconds between measurements")
    parser.add_argument("--battery", type=int, default=93, help="initial battery level, percent")
    parser.add_argument("--temperature", type=float, help="a fixed temperature in degC")
    parser.add_argument("--counter-start", type=int, default=1000,
                        help="encryption counter of the first measurement")
    parser.add_argument("--advertising-interval-ms", type=float, default=100.0)
    args = parser.parse_args()
    if args.key is not None and (len(args.key) != 32 or any(c not in "0123456789abcdefABCDEF" for c in args.key)):
        parser.error("--key takes 32 hex digits")
    if args.every <= 0 or not 0 <= args.battery <= 100:
        parser.error("--every must be > 0 and --battery in 0..100")
    rig_common.setup_logging(args.verbose)

    rig = rig_common.Rig(args, "bthome-thermometer")
    rig.install_lifecycle()
    thermometer = Thermometer(args, rig)
    port = await rig.start_hci_server()
    emit({"rig": "bthome-thermometer", "port": port, "address": args.address,
          "addressType": "random", "name": args.name, "encrypted": args.key is not None,
          # What the rig asks for; Bumble's controller reports it as ADV_IND regardless.
          "advertisingType": "ADV_NONCONN_IND",
          "every": args.every, "legacyReports": args.legacy_reports,
          "bumble": importlib.metadata.version("bumble")})
    await thermometer.device.power_on()
    await thermometer.advertise_next()
    advertiser = asyncio.get_running_loop().create_task(thermometer.run_forever())
    rig.ready(port)
    await rig.wait_until_stopped()
    advertiser.cancel()


if __name__ == "__main__":
    asyncio.run(main())
