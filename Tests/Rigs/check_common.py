"""What every rig checker (`check_*.py`) shares: the pass/fail recorder, the rig as a child
process, and a Bumble central on the rig's H4/TCP port.

Each checker proves one rig (`heart_rate_monitor.py`, `dexcom_g6.py`, ...) with a Bumble
*central*, as Vigil would reach it: launch the rig, read its `{"rig":...}` line and
`READY <port>`, open `tcp-client:127.0.0.1:PORT`, scan, connect, and compare what arrives with
the rig's JSON log. Only that machinery lives here; what is checked stays in each checker.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from typing import AsyncIterator, Callable

from bumble import att, hci
from bumble.device import Advertisement, Device, Peer
from bumble.keys import MemoryKeyStore
from bumble.pairing import PairingConfig, PairingDelegate
from bumble.transport import open_transport

HERE = os.path.dirname(os.path.abspath(__file__))


class Checks:
    """Counts and prints checks: one `CHECK ok|FAIL what: detail` line each."""

    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, ok: bool, what: str, detail: object = "") -> bool:
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        print(f"CHECK {'ok  ' if ok else 'FAIL'} {what}" + (f": {detail}" if detail != "" else ""),
              flush=True)
        return ok

    def finish(self) -> int:
        """Prints the closing `N passed, M failed` line; the exit code is 0 only if none failed."""
        print(f"{self.passed} passed, {self.failed} failed", flush=True)
        return 0 if self.failed == 0 else 1


class RigProcess:
    """A rig script (a file next to this one) as a child process; its stdout lines are parsed
    and kept in `lines`, the `{"rig":...}` line also in `info`."""

    def __init__(self, script: str) -> None:
        self.script = script
        self.process: asyncio.subprocess.Process | None = None
        self.lines: list[dict] = []
        self.changed = asyncio.Event()
        self.port = 0
        self.info: dict = {}

    async def start(self, rig_args: list[str]) -> None:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, os.path.join(HERE, self.script), *rig_args,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE)
        ready = asyncio.get_running_loop().create_future()

        async def pump() -> None:
            assert self.process and self.process.stdout
            while line := await self.process.stdout.readline():
                text = line.decode().strip()
                if text.startswith("READY "):
                    ready.set_result(int(text.split()[1]))
                    continue
                record = json.loads(text)
                if "rig" in record:
                    self.info = record
                self.lines.append(record)
                self.changed.set()
            if not ready.done():
                ready.set_exception(RuntimeError("rig exited before READY"))

        self.pump = asyncio.get_running_loop().create_task(pump())
        self.port = await asyncio.wait_for(ready, 15)

    @property
    def address(self) -> hci.Address:
        """The rig's random static address from its `{"rig":...}` line."""
        return hci.Address(self.info["address"], hci.Address.RANDOM_DEVICE_ADDRESS)

    async def wait_for(self, predicate, timeout: float = 10.0) -> dict | None:
        """The first logged record (already seen or still to come) the predicate accepts, or
        None after `timeout` seconds."""
        async def scan() -> dict:
            while True:
                for record in self.lines:
                    if predicate(record):
                        return record
                self.changed.clear()
                await self.changed.wait()
        try:
            return await asyncio.wait_for(scan(), timeout)
        except asyncio.TimeoutError:
            return None

    async def stop(self) -> int | None:
        """Closes the rig's stdin (the rigs exit on EOF) and returns its exit code; kills it if
        it has not gone after 5 s."""
        if not self.process:
            return None
        assert self.process.stdin
        self.process.stdin.close()
        try:
            return await asyncio.wait_for(self.process.wait(), 5)
        except asyncio.TimeoutError:
            self.process.kill()
            return await self.process.wait()


@contextlib.asynccontextmanager
async def central(rig: RigProcess, address: str, keystore: MemoryKeyStore | None = None,
                  name: str = "check-central") -> AsyncIterator[Device]:
    """A powered-on Bumble device on the rig's HCI port, as Vigil would attach to it.

    `address` is our own random static address: the virtual controller loses ACL data of a
    central that uses its public address (docs/bumble-peer.md), and a stable address lets the
    rig find our bond again. With a `keystore` the device bonds with LE Secure Connections Just
    Works; sharing one keystore between two centrals stands in for a shared state dir.
    Leaving the block closes the TCP client, which is what a crashed host does.
    """
    async with await open_transport(f"tcp-client:127.0.0.1:{rig.port}") as (source, sink):
        device = Device.with_hci(name, hci.Address(address), source, sink)
        if keystore is not None:
            device.keystore = keystore
            device.pairing_config_factory = lambda _c: PairingConfig(
                sc=True, mitm=False, bonding=True,
                delegate=PairingDelegate(io_capability=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT))
        await device.power_on()
        yield device


async def scan_where(device: Device, wanted: Callable[[Advertisement], bool],
                     timeout: float) -> Advertisement | None:
    """The first advertisement `wanted` accepts (passive scan, duplicates kept), or None."""
    found = asyncio.get_running_loop().create_future()

    def on_advertisement(advertisement: Advertisement) -> None:
        if wanted(advertisement) and not found.done():
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


async def scan_for(device: Device, address: str, timeout: float) -> Advertisement | None:
    """The first advertisement whose address starts with `address`, or None (a prefix match,
    as every checker did: Bumble's string form of an address may carry a type suffix)."""
    return await scan_where(device, lambda a: str(a.address).startswith(address), timeout)


async def discover_all(peer: Peer) -> None:
    """Discovers every service and the characteristics of each."""
    await peer.discover_services()
    for service in peer.services:
        await peer.discover_characteristics(service=service)


async def att_error_of(coroutine) -> int | None:
    """The ATT error code the coroutine fails with, or None if it succeeds."""
    try:
        await coroutine
    except att.ATT_Error as error:
        return int(error.error_code)
    return None


def run_main(coroutine, timeout: float | None = None) -> None:
    """Runs a checker's `run` coroutine (bounded by `timeout` seconds when given) and exits with
    its code."""
    sys.exit(asyncio.run(asyncio.wait_for(coroutine, timeout) if timeout else coroutine))
