#!/usr/bin/env python3
"""Proves the MiaoMiao rig works before Vigil is tested against it, with a Bumble *central*.

For each scenario a fresh `miaomiao.py` is started; over `tcp-client:127.0.0.1:PORT`, as Vigil
would, the checker scans for the name, connects, discovers the Nordic UART Service, subscribes,
writes commands and reassembles what comes back. The packet is checked byte for byte against
the rig's `{"sent":"packet"}` log, and decoded here independently of Vigil's Swift code: the
MiaoMiao header (docs/protocols/miaomiao-bubble.md §MiaoMiao) and the Libre FRAM's three
block CRCs (CRC-16/MCRF4XX, bit-reversed, docs/protocols/libre-fram.md §Block CRC), state,
indices and age.

Scenarios: normal read (and D1 05 -> D1 01), a packet with patchInfo, a packet that stops
half-way then a full one after F0 again, a corrupt first FRAM then a good one, new sensor
(0x32, D3 01, F0), no sensor (0x34).

Exits 0 only if every check passed; one `CHECK ok|FAIL ...` line per check, then a summary.
"""

from __future__ import annotations

import asyncio

from bumble.core import UUID
from bumble.device import Device, Peer

from check_common import Checks, RigProcess, central, discover_all, run_main, scan_where

CENTRAL_ADDRESS = "F0:F1:F2:F3:F4:F6"
NUS_SERVICE = UUID("6E400001-B5A3-F393-E0A9-E50E24DCCA9E")
NUS_RX_NOTIFY = UUID("6E400003-B5A3-F393-E0A9-E50E24DCCA9E")
NUS_TX_WRITE = UUID("6E400002-B5A3-F393-E0A9-E50E24DCCA9E")


def libre_crc(region: bytes) -> int:
    """CRC-16/MCRF4XX over the region after its first two bytes, then bit-reversed."""
    crc = 0xFFFF
    for byte in region[2:]:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return int(f"{crc:016b}"[::-1], 2)


def decode_fram(fram: bytes) -> dict:
    result = {}
    for name, (start, end) in {"header": (0, 24), "body": (24, 320), "footer": (320, 344)}.items():
        region = fram[start:end]
        result[name] = (libre_crc(region), region[0] | region[1] << 8)
    result["state"] = fram[4]
    result["trendIndex"] = fram[26]
    result["historyIndex"] = fram[27]
    result["age"] = fram[316] | fram[317] << 8
    newest = 28 + 6 * ((fram[26] - 1) % 16)
    result["newestRaw"] = fram[newest] | (fram[newest + 1] & 0x1F) << 8
    return result


class Bridge:
    """A connected central's view of the bridge: notifications queued as they arrive."""

    def __init__(self, peer: Peer) -> None:
        self.peer = peer
        self.received: list[bytes] = []
        self.arrived = asyncio.Event()
        self.tx = None

    async def setup(self) -> None:
        await discover_all(self.peer)
        rx = self.peer.get_characteristics_by_uuid(NUS_RX_NOTIFY)[0]
        self.tx = self.peer.get_characteristics_by_uuid(NUS_TX_WRITE)[0]

        def on_value(value: bytes) -> None:
            self.received.append(bytes(value))
            self.arrived.set()

        await self.peer.subscribe(rx, on_value)

    async def write(self, value: bytes) -> None:
        await self.peer.write_value(self.tx, value, with_response=False)

    async def collect(self, count: int, quiet: float = 3.5, timeout: float = 15.0) -> bytes:
        """Bytes until `count` are in or nothing arrives for `quiet` seconds (MiaoMiao's gap)."""
        data = b""
        deadline = asyncio.get_running_loop().time() + timeout
        while len(data) < count and asyncio.get_running_loop().time() < deadline:
            if not self.received:
                self.arrived.clear()
                try:
                    await asyncio.wait_for(self.arrived.wait(), quiet)
                except asyncio.TimeoutError:
                    break
                continue
            data += self.received.pop(0)
        return data


def named_miaomiao(advertisement) -> bool:
    name = advertisement.data.get(advertisement.data.COMPLETE_LOCAL_NAME)
    return bool(name) and str(name).startswith("miaomiao")


async def connect(device: Device, rig: RigProcess, checks: Checks) -> Bridge | None:
    # By name, as Vigil finds a bridge; the address check below then ties it to this rig.
    advertisement = await scan_where(device, named_miaomiao, 10)
    if advertisement is None:
        checks.check(False, "found an advertiser named miaomiao*")
        return None
    checks.check(str(advertisement.address).startswith(rig.info["address"]), "advertiser address", advertisement.address)
    connection = await device.connect(advertisement.address, timeout=10)
    bridge = Bridge(Peer(connection))
    await bridge.setup()
    services = {s.uuid.to_hex_str() for s in bridge.peer.services}
    checks.check(NUS_SERVICE.to_hex_str() in services, "Nordic UART service discovered", sorted(services))
    return bridge


async def check_packet(data: bytes, rig: RigProcess, checks: Checks, label: str, patch_info: str | None = None,
                       corrupt: bool = False) -> None:
    want = 363 + (6 if patch_info else 0)
    checks.check(len(data) == want, f"{label}: {want} bytes reassembled", len(data))
    # The rig logs a packet after its last notification left, so the log may trail the data.
    logged = await rig.wait_for(lambda r: r.get("sent") == "packet" and r.get("complete") and r["hex"] == data.hex(), 3)
    checks.check(logged is not None and logged["corrupt"] == corrupt, f"{label}: equals a packet in the rig's sent log")
    if len(data) < 363:
        return
    checks.check(data[0] == 0x28 and data[362] == 0x29, f"{label}: 0x28 ... 0x29 framing")
    checks.check((data[1] << 8 | data[2]) == want, f"{label}: big-endian total length", data[1] << 8 | data[2])
    checks.check(data[5:13].hex() == rig.info["sensorUID"], f"{label}: sensor UID", data[5:13].hex())
    checks.check(data[13] == rig.info["battery"], f"{label}: battery", data[13])
    checks.check(data[14:16].hex() == rig.info["firmware"] and data[16:18].hex() == rig.info["hardware"],
                 f"{label}: firmware / hardware", (data[14:16].hex(), data[16:18].hex()))
    fram = decode_fram(data[18:362])
    if corrupt:
        checks.check(fram["body"][0] != fram["body"][1], f"{label}: body CRC fails as intended", fram["body"])
        return
    checks.check(fram["header"] == (0x9945, 0x9945) and fram["body"] == (0x2446, 0x2446)
                 and fram["footer"] == (0x6A4F, 0x6A4F), f"{label}: FRAM CRCs 9945/2446/6A4F",
                 {k: (hex(fram[k][0]), hex(fram[k][1])) for k in ("header", "body", "footer")})
    checks.check((fram["state"], fram["trendIndex"], fram["historyIndex"], fram["age"]) == (3, 0, 12, 4993),
                 f"{label}: state 3, trend index 0, history index 12, age 4993 min",
                 (fram["state"], fram["trendIndex"], fram["historyIndex"], fram["age"]))
    checks.check(fram["newestRaw"] == 1323, f"{label}: newest trend raw 1323", fram["newestRaw"])
    if patch_info:
        checks.check(data[363:].hex() == patch_info, f"{label}: patchInfo", data[363:].hex())


async def scenario(name: str, rig_args: list[str], body, checks: Checks) -> None:
    print(f"--- {name}", flush=True)
    rig = RigProcess("miaomiao.py")
    await rig.start(rig_args)
    checks.check(rig.port > 0, f"{name}: rig READY", rig.port)
    try:
        async with central(rig, CENTRAL_ADDRESS) as device:
            bridge = await connect(device, rig, checks)
            if bridge:
                await body(bridge, rig, checks)
                await bridge.peer.connection.disconnect()
                gone = await rig.wait_for(lambda r: r.get("event") == "disconnected")
                checks.check(gone is not None, f"{name}: rig saw the disconnection")
    finally:
        code = await rig.stop()
        checks.check(code == 0, f"{name}: rig exited cleanly", code)


async def normal(bridge: Bridge, rig: RigProcess, checks: Checks) -> None:
    await bridge.write(b"\xf0")
    await check_packet(await bridge.collect(363), rig, checks, "F0")
    command = await rig.wait_for(lambda r: r.get("received") == "command" and r["hex"] == "f0")
    checks.check(command is not None, "rig logged the F0 command")
    await bridge.write(bytes([0xD1, 0x05]))
    checks.check(await bridge.collect(2) == bytes([0xD1, 0x01]), "D1 05 answered D1 01")
    # The rig repeats the packet every --interval-s (2 s here).
    await check_packet(await bridge.collect(363), rig, checks, "periodic")


async def with_patch_info(bridge: Bridge, rig: RigProcess, checks: Checks) -> None:
    await bridge.write(b"\xf0")
    await check_packet(await bridge.collect(369), rig, checks, "patchInfo", patch_info="df0000081a24")


async def stops_half_way(bridge: Bridge, rig: RigProcess, checks: Checks) -> None:
    await bridge.write(b"\xf0")
    half = await bridge.collect(363, quiet=3.5)
    checks.check(len(half) == 200, "first packet stops after 200 bytes, then silence", len(half))
    await bridge.write(b"\xf0")  # what the driver does after the gap timeout
    await check_packet(await bridge.collect(363), rig, checks, "after F0 again")


async def corrupt_first(bridge: Bridge, rig: RigProcess, checks: Checks) -> None:
    await bridge.write(b"\xf0")
    data = await bridge.collect(363)
    await check_packet(data, rig, checks, "corrupt", corrupt=True)
    await bridge.write(b"\xf0")
    await check_packet(await bridge.collect(363), rig, checks, "after corrupt")


async def new_sensor(bridge: Bridge, rig: RigProcess, checks: Checks) -> None:
    await bridge.write(b"\xf0")
    checks.check(await bridge.collect(1) == b"\x32", "first F0 answered 0x32 (new sensor)")
    await bridge.write(bytes([0xD3, 0x01]))
    ack = await rig.wait_for(lambda r: r.get("received") == "command" and r["hex"] == "d301")
    checks.check(ack is not None, "rig logged D3 01")
    await bridge.write(b"\xf0")
    await check_packet(await bridge.collect(363), rig, checks, "new sensor")


async def no_sensor(bridge: Bridge, rig: RigProcess, checks: Checks) -> None:
    await bridge.write(b"\xf0")
    checks.check(await bridge.collect(1) == b"\x34", "F0 answered 0x34 (no sensor)")


async def run() -> int:
    checks = Checks()
    await scenario("normal", ["--interval-s", "2"], normal, checks)
    await scenario("patchInfo", ["--patch-info", "df0000081a24"], with_patch_info, checks)
    await scenario("stop half-way", ["--stop-after", "200"], stops_half_way, checks)
    await scenario("corrupt first", ["--corrupt-first"], corrupt_first, checks)
    await scenario("new sensor", ["--new-sensor"], new_sensor, checks)
    await scenario("no sensor", ["--no-sensor"], no_sensor, checks)
    return checks.finish()


if __name__ == "__main__":
    run_main(run())
