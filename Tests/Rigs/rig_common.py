"""Shared plumbing for Vigil's Bumble interop rigs.

A rig is ONE Python process holding a `bumble.link.LocalLink` (Bumble removed its cross-process
link relay in 2025, so every virtual controller must live in the same process) with:

- controller "EXT", whose host side is a TCP server that Vigil connects to as its HCI transport
  (H4 over TCP, exactly what a UART controller would carry);
- controller "PERIPH", driven by a Bumble Host + Device that plays the simulated transmitter.

Protocol of a rig towards the test harness (stdout, line oriented, flushed per line):
- JSON objects, one per line (`{"sent":...}`, `{"event":...}`, `{"rig":...}`);
- exactly one plain `READY <port>` line once the peripheral is advertising.
Diagnostics go to stderr. The rig exits cleanly on SIGTERM/SIGINT and when its stdin is a pipe
that gets closed (the harness died), so no rig outlives its test.

Facts and quirks of Bumble's virtual controller: docs/bumble-peer.md.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import signal
import stat
import struct
import sys
import time
from typing import Any, BinaryIO, Callable

from bumble import hci
from bumble.controller import Controller
from bumble.host import Host
from bumble.link import LocalLink
from bumble.snoop import BtSnooper, Snooper
from bumble.transport.common import AsyncPipeSink, PacketParser

logger = logging.getLogger("vigil.rig")


def emit(obj: dict[str, Any]) -> None:
    """Writes one NDJSON line on stdout and flushes, so a harness reading a pipe sees it now."""
    sys.stdout.write(json.dumps(obj, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def add_common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=0,
                        help="TCP port of the HCI (H4) server Vigil connects to; 0 = any free port")
    parser.add_argument("--host", default="127.0.0.1",
                        help="address the HCI server binds to (loopback only, by default)")
    parser.add_argument("--legacy-reports", action="store_true",
                        help="clear LE Extended Advertising in the EXT controller's features so "
                             "the scanner receives legacy LE Advertising Reports (0x02) instead "
                             "of Bumble's default extended reports (0x0D)")
    parser.add_argument("--snoop", metavar="FILE",
                        help="btsnoop (H4, datalink 1002) of the rig peripheral's own HCI traffic")
    parser.add_argument("--snoop-vigil", metavar="FILE",
                        help="btsnoop of the HCI traffic between Vigil and the EXT controller, "
                             "as Vigil sees it")
    parser.add_argument("--keep-links-on-client-close", action="store_true",
                        help="do not drop EXT's LE links when the Vigil client goes away "
                             "(default drops them, standing in for the HCI Reset a restarted "
                             "host sends, which Bumble's controller ignores)")
    parser.add_argument("--verbose", action="store_true", help="Bumble debug logging on stderr")


class _ReversedSnooper:
    """Records the EXT controller's traffic with the directions of the host (Vigil) side.

    Bumble's Snooper API is written from a host's point of view; at the EXT controller the
    packets Vigil sends arrive on our *source*, so directions are swapped here.
    """

    def __init__(self, snooper: Snooper) -> None:
        self.snooper = snooper

    def from_vigil(self, packet: bytes) -> None:
        self.snooper.snoop(packet, Snooper.Direction.HOST_TO_CONTROLLER)

    def to_vigil(self, packet: bytes) -> None:
        self.snooper.snoop(packet, Snooper.Direction.CONTROLLER_TO_HOST)


class HciTcpServer:
    """H4-over-TCP host transport for the EXT controller, serving one client at a time.

    Written here rather than using Bumble's `tcp-server:` transport because that one shares a
    single H4 parser across clients (a client that dies mid-packet corrupts framing for the
    next one) and gives no hook on client departure. The newest client wins, as in Bumble.
    """

    def __init__(self, controller: Controller, on_client_closed: Callable[[], None],
                 snooper: _ReversedSnooper | None) -> None:
        self.controller = controller
        self.on_client_closed = on_client_closed
        self.snooper = snooper
        self.writer: asyncio.StreamWriter | None = None
        self.server: asyncio.base_events.Server | None = None
        self.clients = 0
        controller.host = self  # controller -> host packets land in on_packet

    async def start(self, host: str, port: int) -> int:
        self.server = await asyncio.start_server(self._serve, host, port)
        return self.server.sockets[0].getsockname()[1]

    def on_packet(self, packet: bytes) -> None:
        if self.snooper:
            self.snooper.to_vigil(packet)
        if self.writer is not None and not self.writer.is_closing():
            self.writer.write(packet)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.writer is not None:
            logger.warning("a new HCI client replaces the previous one")
            self.writer.close()
        self.writer = writer
        self.clients += 1
        client_id = self.clients
        emit({"event": "hci-client-connected", "client": client_id})

        class _Sink:
            def on_packet(inner_self, packet: bytes) -> None:  # noqa: N805
                if self.snooper:
                    self.snooper.from_vigil(packet)
                try:
                    self.controller.on_packet(packet)
                except Exception as error:  # a malformed command must not kill the rig
                    logger.warning("controller rejected packet %s: %r", packet.hex(), error)

        parser = PacketParser(_Sink())
        try:
            while data := await reader.read(4096):
                try:
                    parser.feed_data(data)
                except Exception as error:
                    # Bad H4 framing: real UART controllers lose sync too. Drop the client so
                    # the fault is loud rather than a silent stall.
                    logger.warning("H4 framing error from client: %r", error)
                    emit({"event": "hci-framing-error", "client": client_id, "error": str(error)})
                    break
        except ConnectionError:
            pass
        finally:
            if self.writer is writer:
                self.writer = None
                writer.close()
                emit({"event": "hci-client-closed", "client": client_id})
                self.on_client_closed()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
        if self.server is not None:
            self.server.close()


class Rig:
    """The LocalLink, both controllers, the peripheral's Host, and the process lifecycle."""

    def __init__(self, args: argparse.Namespace, name: str) -> None:
        self.args = args
        self.name = name
        self.link = LocalLink()
        self.ext = Controller("EXT", link=self.link)
        if args.legacy_reports:
            # Bumble sends extended reports whenever the *scanning* controller has this bit,
            # even after legacy LE Set Scan Enable (see docs/bumble-peer.md).
            self.ext.le_features = self.ext.le_features & ~hci.LeFeatureMask.LE_EXTENDED_ADVERTISING
        self.periph = Controller("PERIPH", link=self.link)
        self.host = Host(self.periph, AsyncPipeSink(self.periph))
        self._files: list[BinaryIO] = []
        if args.snoop:
            self.host.snooper = BtSnooper(self._open(args.snoop))
        vigil_snooper = _ReversedSnooper(BtSnooper(self._open(args.snoop_vigil))) \
            if args.snoop_vigil else None
        self.hci_server = HciTcpServer(self.ext, self._on_client_closed, vigil_snooper)
        self.stopping = asyncio.Event()

    def _open(self, path: str) -> BinaryIO:
        handle = open(path, "wb")
        self._files.append(handle)
        return handle

    def _on_client_closed(self) -> None:
        if self.args.keep_links_on_client_close:
            return
        # A restarted Vigil sends HCI Reset, which on real silicon drops every link; Bumble's
        # Reset is a no-op, so without this the peripheral would stay connected to a dead host
        # and never advertise again. Reason 0x13: Remote User Terminated Connection.
        for connection in list(self.ext.le_connections.values()):
            emit({"event": "link-dropped-by-rig", "handle": connection.handle,
                  "reason": "hci-client-closed"})
            self.ext.on_hci_disconnect_command(
                hci.HCI_Disconnect_Command(connection_handle=connection.handle, reason=0x13))

    def install_lifecycle(self) -> None:
        # A parent may hand us a mask with SIGTERM blocked (Swift worker threads block most
        # signals and Foundation's Process passes the mask on): unblock, or SIGTERM never lands.
        signal.pthread_sigmask(signal.SIG_SETMASK, set())
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, self.stopping.set)
        # Watch stdin only when it is a pipe: that is how a harness holds us. A terminal or
        # /dev/null (a shell's background job) must not stop the rig.
        try:
            mode = os.fstat(sys.stdin.fileno()).st_mode
        except (OSError, ValueError):
            return
        if stat.S_ISFIFO(mode):
            def on_stdin() -> None:
                try:
                    data = os.read(sys.stdin.fileno(), 4096)
                except OSError:
                    data = b""
                if not data:
                    loop.remove_reader(sys.stdin.fileno())
                    self.stopping.set()
            loop.add_reader(sys.stdin.fileno(), on_stdin)

    async def start_hci_server(self) -> int:
        return await self.hci_server.start(self.args.host, self.args.port)

    def ready(self, port: int) -> None:
        sys.stdout.write(f"READY {port}\n")
        sys.stdout.flush()

    async def wait_until_stopped(self) -> None:
        await self.stopping.wait()
        emit({"event": "rig-stopping"})
        self.hci_server.close()
        for handle in self._files:
            handle.flush()
            handle.close()


def setup_logging(verbose: bool) -> None:
    logging.basicConfig(stream=sys.stderr,
                        level=logging.DEBUG if verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")


def monotonic_ms() -> int:
    return int(time.monotonic() * 1000)


def u16(value: int) -> bytes:
    return struct.pack("<H", value)
