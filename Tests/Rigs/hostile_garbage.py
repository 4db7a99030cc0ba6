"""Garbage advertising data for `hostile_peers.py --scenario garbage-advertisers`.

AD structures are `length, type, data` with `length` counting type + data (Core v5.4 Vol 3
Part C 11, CSS v11 Part A). Each shape below breaks that format, or a profile carried in it
(BTHome v2 service data 0xFCD2; Ruuvi manufacturer data 0x0499), in one way; a legacy report
carries at most 31 bytes (Vol 4 Part E 7.7.65.2), and one shape exceeds that as well.
"""

from __future__ import annotations


def _ad(ad_type: int, payload: bytes) -> bytes:
    return bytes([len(payload) + 1, ad_type]) + payload


SHAPES: tuple[tuple[str, bytes], ...] = (
    ("length-overruns-data", bytes([0x1F, 0xFF, 0x01, 0x02, 0x03])),
    ("zero-lengths", bytes([0x00, 0x00, 0x00]) + _ad(0x01, b"\x06") + bytes([0x00, 0x00])),
    ("unknown-types", _ad(0xF7, b"\x01\x02") + _ad(0x77, b"\x09") + _ad(0x00, b"")),
    ("truncated-service-data-16", _ad(0x16, b"\xD2") + bytes([0x01, 0x16])),
    ("truncated-service-data-128", _ad(0x21, bytes(range(9)))),
    ("huge-manufacturer-data", _ad(0xFF, b"\x99\x04" + bytes(range(27)))),
    ("manufacturer-length-255", bytes([0xFF, 0xFF, 0x4C, 0x00]) + bytes(20)),
    ("bthome-truncated-object", _ad(0x16, b"\xD2\xFC\x40\x02\x01")),
    ("bthome-unknown-object", _ad(0x16, b"\xD2\xFC\x40\xFE\x01\x02\x03")),
    ("bthome-encrypted-too-short", _ad(0x16, b"\xD2\xFC\x41\x01\x02")),
    ("bthome-bad-version", _ad(0x16, b"\xD2\xFC\xE0\x02\x10\x01")),
    ("bthome-info-only", _ad(0x16, b"\xD2\xFC")),
    ("ruuvi-format5-truncated", _ad(0xFF, b"\x99\x04\x05\x12\x34")),
    ("ruuvi-format3-truncated", _ad(0xFF, b"\x99\x04\x03\x29")),
    ("ruuvi-unknown-format", _ad(0xFF, b"\x99\x04\xFE" + bytes(20))),
    ("ruuvi-format5-all-ff", _ad(0xFF, b"\x99\x04\x05" + b"\xFF" * 23)),
    ("invalid-utf8-name", _ad(0x09, b"\xFF\xFE\xC3")),
    ("odd-uuid16-list", _ad(0x03, b"\x0D\x18\x0F")),
    ("truncated-uuid128-list", _ad(0x07, b"\x01\x02\x03\x04")),
    ("hrm-look-alike", _ad(0x03, b"\x0D\x18") + _ad(0x09, b"Vigil HRM")),
    ("dexcom-look-alike", _ad(0x03, b"\xBC\xFE") + _ad(0x09, b"DexcomAB")),
    ("empty", b""),
    ("over-31-bytes", _ad(0xFF, b"\x99\x04" + bytes(40))),
)


def garbage_advertising_data(index: int) -> bytes:
    """The AD bytes of garbage report number `index` (shapes in turn)."""
    return SHAPES[index % len(SHAPES)][1]
