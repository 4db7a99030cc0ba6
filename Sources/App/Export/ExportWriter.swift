import Clocks

/// Appends export text straight to bytes: the hot path of a year's export (`vigil-bench
/// history` exports 710,000 rows as CSV, with a target of under a second), where building a
/// `String` per field and a `JSON` tree per reading costs several times more than the formatting
/// itself.
struct ExportWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 160) { bytes.reserveCapacity(capacity) }

    mutating func write(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func write(byte: UInt8) { bytes.append(byte) }

    mutating func write(int value: Int64) {
        if value < 0 {
            bytes.append(0x2D)
            // -Int64.min does not exist; its digits are written through UInt64.
            write(unsigned: value.magnitude)
        } else {
            write(unsigned: UInt64(value))
        }
    }

    mutating func write(unsigned value: UInt64) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var v = value, count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(truncatingIfNeeded: v % 10) + 0x30
                v /= 10
                count += 1
            } while v > 0
            for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[i]) }
        }
    }

    /// `value` zero-padded to `width` digits (non-negative values only: dates and times).
    mutating func write(padded value: Int64, width: Int) {
        var magnitude: Int64 = 1
        for _ in 1..<max(width, 1) { magnitude *= 10 }
        var v = value, m = magnitude
        if v >= m * 10 { write(int: v); return }  // wider than asked: all digits, as String(v) would
        while m > 0 {
            bytes.append(UInt8(truncatingIfNeeded: v / m) + 0x30)
            v %= m
            m /= 10
        }
    }

    /// Integral values without a fraction (`120`), others in Swift's shortest round-tripping
    /// form (`97.6`); non-finite values write nothing (an empty CSV field; JSON writes null).
    mutating func write(number: Double) {
        guard number.isFinite else { return }
        if number == number.rounded(), abs(number) < 1e15 { write(int: Int64(number)) } else { write("\(number)") }
    }

    /// ISO 8601 local time with offset, e.g. `2026-11-22T07:05:00+01:00` (see `ISO8601.string`).
    mutating func write(time: WallClockTime, offsetMinutes: Int64, alwaysMilliseconds: Bool) {
        let local = time.microsecondsSinceEpoch + offsetMinutes * 60_000_000
        let seconds = ISO8601.floorDivide(local, 1_000_000)
        let milliseconds = (local - seconds * 1_000_000) / 1000
        let days = ISO8601.floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (y, m, d) = WallClockTime.civil(fromDays: days)
        write(padded: y, width: 4); bytes.append(0x2D)
        write(padded: m, width: 2); bytes.append(0x2D)
        write(padded: d, width: 2); bytes.append(0x54)
        write(padded: secondOfDay / 3600, width: 2); bytes.append(0x3A)
        write(padded: secondOfDay / 60 % 60, width: 2); bytes.append(0x3A)
        write(padded: secondOfDay % 60, width: 2)
        if alwaysMilliseconds || milliseconds != 0 {
            bytes.append(0x2E)
            write(padded: milliseconds, width: 3)
        }
        bytes.append(offsetMinutes < 0 ? 0x2D : 0x2B)
        write(padded: abs(offsetMinutes) / 60, width: 2); bytes.append(0x3A)
        write(padded: abs(offsetMinutes) % 60, width: 2)
    }

    /// A JSON string literal (RFC 8259 §7), escaped as `JSON` escapes it.
    mutating func write(jsonString text: String) {
        bytes.append(0x22)
        for byte in text.utf8 {
            switch byte {
            case 0x22: bytes.append(0x5C); bytes.append(0x22)
            case 0x5C: bytes.append(0x5C); bytes.append(0x5C)
            case 0x0A: bytes.append(0x5C); bytes.append(0x6E)
            case 0x0D: bytes.append(0x5C); bytes.append(0x72)
            case 0x09: bytes.append(0x5C); bytes.append(0x74)
            case ..<0x20:
                write("\\u00")
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            default: bytes.append(byte)
            }
        }
        bytes.append(0x22)
    }
}
