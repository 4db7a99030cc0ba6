#!/usr/bin/env python3
"""Times Bumble's HCI decoder over a btsnoop capture: the reference figure for Vigil's own.

Reads a btsnoop file (datalink 1002, HCI UART/H4: every record starts with the H4 packet type;
BlueZ src/shared/btsnoop.h), loads every record (or the first --limit) into memory, then times
`bumble.hci.HCI_Packet.from_bytes` over them, so file I/O is not part of the figure.

Prints `key=value` lines; the headline is `bumble_reports_per_second=<n>`.
Run with the Bumble venv: `$(scripts/bumble-env.sh | tail -n1) scripts/bench/bumble_decode_rate.py FILE`
"""

from __future__ import annotations

import argparse
import struct
import sys
import time

BTSNOOP_MAGIC = b"btsnoop\0"
DATALINK_H4 = 1002
HEADER = struct.Struct(">8sII")            # magic, version, datalink
RECORD = struct.Struct(">IIIIq")           # original len, included len, flags, drops, timestamp


def read_records(path: str, limit: int | None) -> list[bytes]:
    with open(path, "rb") as handle:
        data = handle.read()
    if len(data) < HEADER.size:
        sys.exit(f"{path}: {len(data)} bytes, shorter than a btsnoop header")
    magic, version, datalink = HEADER.unpack_from(data, 0)
    if magic != BTSNOOP_MAGIC:
        sys.exit(f"{path}: not a btsnoop file (magic {magic!r})")
    if datalink != DATALINK_H4:
        sys.exit(f"{path}: datalink {datalink}, expected {DATALINK_H4} (HCI UART/H4)")
    records: list[bytes] = []
    offset = HEADER.size
    while offset + RECORD.size <= len(data) and (limit is None or len(records) < limit):
        _, included, _, _, _ = RECORD.unpack_from(data, offset)
        offset += RECORD.size
        if offset + included > len(data):
            print(f"warning: truncated last record at offset {offset - RECORD.size}", file=sys.stderr)
            break
        records.append(data[offset:offset + included])
        offset += included
    return records


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--limit", type=int, help="decode only the first N records")
    parser.add_argument("--repeat", type=int, default=1, help="decode the set N times (best time)")
    args = parser.parse_args()

    from bumble import hci  # after argument errors, so --help works without the venv

    records = read_records(args.file, args.limit)
    if not records:
        sys.exit(f"{args.file}: no records")
    best = float("inf")
    failures = 0
    for _ in range(max(1, args.repeat)):
        failures = 0
        start = time.perf_counter()
        for record in records:
            try:
                hci.HCI_Packet.from_bytes(record)
            except Exception:  # count, do not stop: a capture may hold packets Bumble rejects
                failures += 1
        best = min(best, time.perf_counter() - start)
    print(f"records={len(records)}")
    print(f"decode_failures={failures}")
    print(f"seconds={best:.6f}")
    print(f"microseconds_per_record={best / len(records) * 1e6:.2f}")
    print(f"bumble_reports_per_second={int(len(records) / best)}")


if __name__ == "__main__":
    main()
