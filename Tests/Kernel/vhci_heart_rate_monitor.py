#!/usr/bin/env python3
"""The heart-rate rig (Tests/Rigs/heart_rate_monitor.py) behind the kernel's /dev/vhci.

The same Bumble LocalLink as every rig: controller EXT, whose host is now the Linux kernel
(hci_vhci registers it as hciN, so Vigil reaches it through the real HCI user-channel socket),
and controller PERIPH driven by the rig's HeartRateMonitor (advertising, GATT, notifications,
its NDJSON log on stdout). Only the host transport differs from the TCP rigs; the peripheral
is the rig's own class, not a copy.

A real controller drops its links on HCI Reset (Core v5.4 Vol 4 Part E 7.3.2); Bumble's Reset
is a no-op (docs/bumble-peer.md §Controller quirks), and over vhci there is no client
disconnecting either (the kernel keeps /dev/vhci open across user-channel sessions). So this rig
drops EXT's LE links when the host sends Reset: a second `vigil run` then finds the peripheral advertising
again, as it would on silicon.

stdout: the rig's lines, plus {"event":"vhci-open","hci":"hciN"}, {"event":"hci-reset-from-host"} and
`READY vhci` once advertising. Exits on SIGTERM/SIGINT or when a piped stdin closes; a SIGKILL
closes /dev/vhci and the kernel unregisters the controller (what the controller-lost check does).
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import importlib.metadata
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Rigs"))

from bumble import hci  # noqa: E402
from bumble.transport.common import PacketParser  # noqa: E402

import heart_rate_monitor  # noqa: E402
import rig_common  # noqa: E402
from rig_common import emit  # noqa: E402

HCI_RESET_OPCODE = 0x0C03  # Core v5.4 Vol 4 Part E 7.3.2
HCI_VENDOR_PACKET = 0xFF  # Linux include/net/bluetooth/hci.h HCI_VENDOR_PKT: vhci's own messages
HCI_PRIMARY = 0x00  # include/net/bluetooth/hci.h: a primary (BR/EDR/LE) controller


class VhciRig(rig_common.Rig):
    """A Rig whose EXT controller's host is the kernel behind /dev/vhci instead of a TCP client."""

    async def open_vhci(self, path: str) -> None:
        # Our own few lines rather than Bumble's `vhci:` transport: that one writes through an
        # asyncio pipe, which closes the file on the first failed write, and the kernel fails
        # every write (ENXIO, drivers/bluetooth/hci_vhci.c -> hci_recv_frame) while the hci
        # device is down, i.e. between two user-channel sessions. Closing /dev/vhci unregisters
        # the controller, so one advertising report between two `vigil` runs would make hci0
        # vanish. A real controller on a UART whose host is not listening loses the bytes too.
        self.vhci = os.open(path, os.O_RDWR | os.O_NONBLOCK | os.O_CLOEXEC)
        self.dropped_while_down = 0
        rig = self

        class FromKernel:
            def on_packet(self, packet: bytes) -> None:
                # H4: 0x01 command, then opcode (LE u16).
                if len(packet) >= 3 and packet[0] == hci.HCI_COMMAND_PACKET \
                        and packet[1] | packet[2] << 8 == HCI_RESET_OPCODE:
                    emit({"event": "hci-reset-from-host"})
                    rig._on_client_closed()
                try:
                    rig.ext.on_packet(packet)
                except Exception as error:  # a malformed command must not kill the rig
                    emit({"event": "controller-rejected", "hex": packet.hex(), "error": repr(error)})

        class ToKernel:
            def on_packet(self, packet: bytes) -> None:
                try:
                    os.write(rig.vhci, packet)
                except OSError as error:
                    if error.errno != errno.ENXIO:
                        raise
                    rig.dropped_while_down += 1

        parser = PacketParser(FromKernel())

        def readable() -> None:
            try:
                data = os.read(self.vhci, 4096)  # one packet per read
            except BlockingIOError:
                return
            if data[:1] == bytes([HCI_VENDOR_PACKET]):
                # The kernel's answer to the create request: 0xFF, opcode, hdev->id (LE u16).
                emit({"event": "vhci-open", "path": path, "hci": f"hci{data[2] | data[3] << 8}"})
                return
            parser.feed_data(data)

        asyncio.get_running_loop().add_reader(self.vhci, readable)
        # "Create a primary controller" (hci_vhci.c vhci_create_device: 0xFF, then the type).
        os.write(self.vhci, bytes([HCI_VENDOR_PACKET, HCI_PRIMARY]))
        self.ext.host = ToKernel()

    def close_vhci(self) -> None:
        asyncio.get_running_loop().remove_reader(self.vhci)
        emit({"event": "vhci-closing", "droppedWhileDown": self.dropped_while_down})
        os.close(self.vhci)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rig_common.add_common_arguments(parser)
    parser.add_argument("--vhci", default="/dev/vhci")
    parser.add_argument("--name", default="Vigil HRM")
    parser.add_argument("--address", default="C2:11:22:33:44:55")
    parser.add_argument("--rate-hz", type=float, default=2.0)
    parser.add_argument("--battery", type=int, default=87)
    parser.add_argument("--battery-every", type=int, default=5)
    parser.add_argument("--manufacturer", default="Vigil Test Rigs Ltd")
    parser.add_argument("--advertising-interval-ms", type=float, default=100.0)
    parser.add_argument("--require-encryption", action="store_true")
    args = parser.parse_args()
    rig_common.setup_logging(args.verbose)

    rig = VhciRig(args, "heart-rate-monitor-vhci")
    rig.install_lifecycle()
    hrm = heart_rate_monitor.HeartRateMonitor(args, rig)
    await rig.open_vhci(args.vhci)
    emit({"rig": "heart-rate-monitor", "transport": "vhci", "address": args.address,
          "addressType": "random", "name": args.name, "bumble": importlib.metadata.version("bumble")})
    await hrm.device.power_on()
    await hrm.device.start_advertising(auto_restart=True)
    notifier = asyncio.get_running_loop().create_task(hrm.notify_forever())
    sys.stdout.write("READY vhci\n")
    sys.stdout.flush()
    await rig.wait_until_stopped()
    notifier.cancel()
    rig.close_vhci()


if __name__ == "__main__":
    asyncio.run(main())
