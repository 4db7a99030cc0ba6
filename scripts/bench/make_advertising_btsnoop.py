#!/usr/bin/env python3
"""Writes a synthetic btsnoop (datalink 1002) of LE advertising reports, for the benchmarks.

Each record is one controller->host H4 event: LE Meta (0x3E) with either a legacy LE
Advertising Report (subevent 0x02, Core v5.4 Vol 4 Part E 7.7.65.2) or an LE Extended
Advertising Report (subevent 0x0D, 7.7.65.13), one report per event, cycling through
`--devices` random static addresses with a heart-rate-monitor-like payload. Plain Python,
no Bumble needed, so the figures measure decoders and not this generator.
"""

from __future__ import annotations

import argparse
import struct

# btsnoop timestamps: microseconds since 0000-01-01; BlueZ's offset for 2000-01-01.
EPOCH_2000 = 0x00E03AB44A676000


def advertising_data(index: int) -> bytes:
    name = f"HRM {index:04d}".encode()
    return (bytes([2, 0x01, 0x06])                          # Flags: LE General | no BR/EDR
            + bytes([5, 0x03]) + struct.pack("<HH", 0x180D, 0x180F)
            + bytes([3, 0x19]) + struct.pack("<H", 832)     # Appearance
            + bytes([len(name) + 1, 0x09]) + name)          # Complete Local Name


def legacy_report(address: bytes, data: bytes, rssi: int) -> bytes:
    body = bytes([0x02, 1, 0x00, 0x01]) + address + bytes([len(data)]) + data + struct.pack("<b", rssi)
    return bytes([0x04, 0x3E, len(body)]) + body


def extended_report(address: bytes, data: bytes, rssi: int) -> bytes:
    body = (bytes([0x0D, 1]) + struct.pack("<H", 0x0013)    # legacy ADV_IND as extended
            + bytes([0x01]) + address + bytes([1, 0, 0xFF]) + struct.pack("<bb", 127, rssi)
            + struct.pack("<H", 0) + bytes([0x00]) + bytes(6) + bytes([len(data)]) + data)
    return bytes([0x04, 0x3E, len(body)]) + body


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output")
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--devices", type=int, default=40)
    parser.add_argument("--extended", action="store_true", help="LE Extended Advertising Reports")
    args = parser.parse_args()
    make = extended_report if args.extended else legacy_report
    with open(args.output, "wb") as out:
        out.write(b"btsnoop\0" + struct.pack(">II", 1, 1002))
        timestamp = EPOCH_2000 + 820_000_000 * 1_000_000
        for n in range(args.count):
            device = n % args.devices
            address = bytes([device & 0xFF, 0x44, 0x33, 0x22, 0x11, 0xC2])  # little-endian, static random
            packet = make(address, advertising_data(device), -40 - device % 50)
            flags = 0x03  # received, command/event
            out.write(struct.pack(">IIIIq", len(packet), len(packet), flags, 0, timestamp) + packet)
            timestamp += 250
    print(f"wrote {args.count} {'extended' if args.extended else 'legacy'} reports to {args.output}")


if __name__ == "__main__":
    main()
