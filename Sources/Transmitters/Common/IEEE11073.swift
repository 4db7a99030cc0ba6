import Wire

/// The IEEE 11073-20601 (MDER) decimal floating-point types that the SIG health profiles
/// (Glucose, CGMS, thermometers, blood pressure) carry: value = mantissa × 10^exponent.
///
/// Source: ISO/IEEE 11073-20601 FLOAT-Type / SFLOAT-Type, as implemented in NordicBLE
/// `Data.java` and summarised in docs/protocols/sig-common.md §SFLOAT and FLOAT. The special values
/// are checked on the raw bits *before* sign extension, so 0x0802 is −∞ and not "2 × 10^0".
public enum IEEE11073 {
    /// A decoded value: a finite number kept exactly as mantissa and exponent, or a special.
    public enum Value: Hashable, Sendable, CustomStringConvertible {
        case number(mantissa: Int32, exponent: Int8)
        case notANumber
        /// NRes: the value cannot be represented at this resolution.
        case notAtThisResolution
        case positiveInfinity
        case negativeInfinity
        /// The one reserved special (0x0801 / 0x00800001).
        case reservedForFutureUse

        /// The number as a Double: ±infinity for the infinities, nil for NaN, NRes and the
        /// reserved value, which carry no magnitude a caller could use.
        public var doubleValue: Double? {
            switch self {
            case let .number(mantissa, exponent):
                // The decimal text through the standard library's correctly rounded parser:
                // scaling by repeated ×10 is inexact beyond 10^22 and ×10^-n is inexact at once,
                // while "120e-4" parses to exactly the Double nearest 0.012.
                return Double("\(mantissa)e\(exponent)")
            case .positiveInfinity: return .infinity
            case .negativeInfinity: return -.infinity
            case .notANumber, .notAtThisResolution, .reservedForFutureUse: return nil
            }
        }

        public var description: String {
            switch self {
            case let .number(mantissa, exponent): "\(mantissa)e\(exponent)"
            case .notANumber: "NaN"
            case .notAtThisResolution: "NRes"
            case .positiveInfinity: "+INF"
            case .negativeInfinity: "-INF"
            case .reservedForFutureUse: "reserved"
            }
        }
    }

    /// SFLOAT-Type: 16 bits, 4-bit two's-complement exponent (bits 15–12) and 12-bit
    /// two's-complement mantissa (bits 11–0).
    public struct SFloat: Hashable, Sendable, CustomStringConvertible {
        public var raw: UInt16

        public init(raw: UInt16) { self.raw = raw }

        public var value: Value {
            switch raw {
            case 0x07FF: return .notANumber
            case 0x0800: return .notAtThisResolution
            case 0x07FE: return .positiveInfinity
            case 0x0802: return .negativeInfinity
            case 0x0801: return .reservedForFutureUse
            default:
                // Shift the field to the top of a signed integer, then arithmetic-shift back down.
                let exponent = Int8(truncatingIfNeeded: Int16(bitPattern: raw) >> 12)
                let mantissa = Int32(Int16(bitPattern: raw << 4) >> 4)
                return .number(mantissa: mantissa, exponent: exponent)
            }
        }

        public var doubleValue: Double? { value.doubleValue }

        public var description: String { value.description }
    }

    /// FLOAT-Type: 32 bits, signed 8-bit exponent (high byte) and 24-bit two's-complement
    /// mantissa (low 24 bits).
    public struct Float: Hashable, Sendable, CustomStringConvertible {
        public var raw: UInt32

        public init(raw: UInt32) { self.raw = raw }

        public var value: Value {
            switch raw {
            case 0x007F_FFFF: return .notANumber
            case 0x0080_0000: return .notAtThisResolution
            case 0x007F_FFFE: return .positiveInfinity
            case 0x0080_0002: return .negativeInfinity
            case 0x0080_0001: return .reservedForFutureUse
            default:
                let exponent = Int8(truncatingIfNeeded: Int32(bitPattern: raw) >> 24)
                let mantissa = Int32(bitPattern: raw << 8) >> 8
                return .number(mantissa: mantissa, exponent: exponent)
            }
        }

        public var doubleValue: Double? { value.doubleValue }

        public var description: String { value.description }
    }
}

extension ByteReader {
    public mutating func readSFloat(_ field: StaticString = "SFLOAT") throws(WireError) -> IEEE11073.SFloat {
        IEEE11073.SFloat(raw: try readUInt16(field))
    }

    public mutating func readFloat11073(_ field: StaticString = "FLOAT") throws(WireError) -> IEEE11073.Float {
        IEEE11073.Float(raw: try readUInt32(field))
    }
}
