#!/usr/bin/env python3
"""Hostile Bluetooth LE peers next to legitimate ones, on ONE Bumble controller.

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
import sys
from types import SimpleNamespace

from bumble import hci

sys.dont_write_bytecode = True  # keep Tests/Rigs free of __pycache__

import bthome_thermometer  # noqa: E402
import dexcom_g6  # noqa: E402
import heart_rate_monitor  # noqa: E402
import rig_common  # noqa: E402
from hostile_garbage import garbage_advertising_data  # noqa: E402
from hostile_peripherals import HOSTILE_CLASSES, Peripheral  # noqa: E402
from rig_common import emit  # noqa: E402

HOSTILE_ADDRESS = "C5:BA:D0:00:00:01"
DEXCOM_ADDRESS = "C3:DE:C0:00:12:AB"
THERMOMETER_ADDRESS = "C4:11:22:33:44:66"
SCENARIOS = ("none", "flood", "unsolicited-att", "l2cap-lies", "oversized", "pairing-failures",
             "garbage-advertisers")


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
        glucose_mgdl=args.dexcom_glucose_mgdl, drop_at=args.dexcom_drop_at, ignore="", calibration_result=0)


def namespace_for_thermometer(args: argparse.Namespace) -> SimpleNamespace:
    return SimpleNamespace(name="Fridge", address=THERMOMETER_ADDRESS, key=None, every=1.0,
                           battery=93, temperature=None, counter_start=1000,
                           advertising_interval_ms=100.0)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rig_common.add_common_arguments(parser)
    parser.add_argument("--scenario", choices=SCENARIOS, default="none")
    parser.add_argument("--no-hrm", action="store_true", help="leave the legitimate HRM out")
    parser.add_argument("--hrm-address", default="C2:11:22:33:44:55")
    parser.add_argument("--rate-hz", type=float, default=5.0, help="legitimate HRM notifications/s")
    parser.add_argument("--with-dexcom", action="store_true", help="also serve the legitimate Dexcom G6")
    parser.add_argument("--dexcom-id", default="8112AB")
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
    asyncio.run(main())
