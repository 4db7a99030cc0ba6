#!/usr/bin/env python3
"""Simulated Bubble Libre bridge: an independent peer for Vigil's interop tests.

The same Nordic UART peripheral as miaomiao.py (whose class it extends: advertising, GATT,
connection bookkeeping), speaking the Bubble protocol instead (written from
docs/protocols/miaomiao-bubble.md §Bubble and docs/protocols/libre2-fram.md §Through the
bridges, not from any app's code):

- `00 <app> <minutes>` (start): the `80` info message (firmware 2.6, battery %, hardware 1.4)
  at once, then again every --interval-s seconds while subscribed;
- `02 <app> 00 00 00 2B` (request data): `C0` (sensor UID), `C1` (patchInfo at bytes 5-10, the
  layout of firmware 1.35 and later), then the 344-byte FRAM plus 8 footer bytes in `82` chunks
  of 16 payload bytes (payload from byte 4), one notification each.

The FRAM is miaomiao.py's: the real Libre 1 dump, or with --libre2 a published ENCRYPTED Libre 2
dump with its UID and patchInfo, sent as the sensor stores it.

stdout: `{"rig":...}` once, `READY <port>`, then NDJSON lines:
  {"received":"command","peer":..,"hex":..}
  {"sent":"message","peer":..,"hex":..}   (80, C0, C1)
  {"sent":"fram","peer":..,"hex":<the 344 bytes>,"chunks":n}
  {"event":"connected"|"disconnected"|"subscribed"|...}

Example: bubble.py --port 0 --interval-s 10 --libre2 example
"""

from __future__ import annotations

import argparse
import asyncio

from bumble.device import Connection

import miaomiao
import rig_common
from rig_common import emit

FIRMWARE = bytes([2, 6])
HARDWARE = bytes([1, 4])
CHUNK_PAYLOAD = 16


class Bubble(miaomiao.MiaoMiao):
    def on_write(self, connection: Connection, value: bytes) -> None:
        value = bytes(value)
        emit({"received": "command", "peer": str(connection.peer_address), "hex": value.hex()})
        loop = asyncio.get_running_loop()
        if len(value) >= 3 and value[0] == 0x00:
            loop.create_task(self.on_start(connection))
        elif len(value) >= 1 and value[0] == 0x02:
            loop.create_task(self.send_packet(connection))

    def info_message(self) -> bytes:
        return bytes([0x80, 0x04]) + FIRMWARE + bytes([self.args.battery, 0x00, 0x00]) + HARDWARE

    async def on_start(self, connection: Connection) -> None:
        await self.send_message(connection, self.info_message())
        if connection.handle not in self.periodic:
            self.periodic[connection.handle] = asyncio.get_running_loop().create_task(self.every_interval(connection))

    async def every_interval(self, connection: Connection) -> None:
        while True:
            await asyncio.sleep(self.args.interval_s)
            try:
                await self.send_message(connection, self.info_message())
            except Exception as error:  # a dying link must not stop the rig
                emit({"event": "notify-failed", "error": repr(error)})
                return

    async def send_packet(self, connection: Connection) -> None:
        await self.send_message(connection, bytes([0xC0, 0x08]) + self.uid)
        await self.send_message(connection, bytes([0xC1, 0x00, 0x00, 0x00, 0x00]) + bytes.fromhex(self.patch_info or "df0000081a24"))
        async with self.send_lock:
            if connection.handle not in self.device.connections:
                return
            padded = self.fram + bytes(8)
            chunks = 0
            for index, start in enumerate(range(0, len(padded), CHUNK_PAYLOAD)):
                chunk = bytes([0x82, index, 0x00, 0x00]) + padded[start:start + CHUNK_PAYLOAD]
                await self.device.notify_subscriber(connection, self.rx, chunk)
                chunks += 1
                await asyncio.sleep(self.args.notification_gap_ms / 1000)
            emit({"sent": "fram", "peer": str(connection.peer_address), "hex": self.fram.hex(), "chunks": chunks})


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rig_common.add_common_arguments(parser)
    parser.add_argument("--name", default="Bubble42")
    parser.add_argument("--address", default="C3:42:55:42:42:01", help="random static address of the peripheral")
    parser.add_argument("--battery", type=int, default=87, help="bridge battery, percent")
    parser.add_argument("--interval-s", type=float, default=300.0, help="seconds between info messages (a real Bubble: 300)")
    parser.add_argument("--notification-gap-ms", type=float, default=15.0, help="pause between FRAM chunks")
    parser.add_argument("--libre2", choices=sorted(miaomiao.LIBRE2_DUMPS),
                        help="carry a published encrypted Libre 2 dump (with its UID and patchInfo) instead of the Libre 1")
    parser.add_argument("--advertising-interval-ms", type=float, default=100.0)
    args = parser.parse_args()
    args.patch_info = None
    if not 0 <= args.battery <= 100 or args.interval_s <= 0:
        parser.error("--battery in 0..100, --interval-s > 0")
    rig_common.setup_logging(args.verbose)

    rig = rig_common.Rig(args, "bubble")
    rig.install_lifecycle()
    await miaomiao.serve_bridge(rig, Bubble(args, rig), args, "bubble", "2.6", "1.4")


if __name__ == "__main__":
    asyncio.run(main())
