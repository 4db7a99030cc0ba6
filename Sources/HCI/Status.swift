/// HCI error codes, the status of every command and the reason of every disconnection
/// (Core v5.4 Vol 1 Part F §1.3).
extension HCI {
    public struct Status: Hashable, Sendable, RawRepresentable, CustomStringConvertible {
        public var rawValue: UInt8
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        public init(_ rawValue: UInt8) { self.rawValue = rawValue }

        public static let success = Status(0x00)
        public static let unknownCommand = Status(0x01)
        public static let unknownConnectionIdentifier = Status(0x02)
        public static let hardwareFailure = Status(0x03)
        public static let authenticationFailure = Status(0x05)
        public static let pinOrKeyMissing = Status(0x06)
        public static let memoryCapacityExceeded = Status(0x07)
        public static let connectionTimeout = Status(0x08)
        public static let connectionLimitExceeded = Status(0x09)
        public static let commandDisallowed = Status(0x0C)
        public static let invalidParameters = Status(0x12)
        public static let remoteUserTerminated = Status(0x13)
        public static let remoteLowResources = Status(0x14)
        public static let remotePowerOff = Status(0x15)
        public static let localHostTerminated = Status(0x16)
        public static let unsupportedRemoteFeature = Status(0x1A)
        public static let unspecifiedError = Status(0x1F)
        public static let llResponseTimeout = Status(0x22)
        public static let instantPassed = Status(0x28)
        public static let insufficientSecurity = Status(0x2F)
        public static let controllerBusy = Status(0x3A)
        public static let unacceptableConnectionParameters = Status(0x3B)
        public static let advertisingTimeout = Status(0x3C)
        public static let terminatedMICFailure = Status(0x3D)
        public static let connectionFailedToBeEstablished = Status(0x3E)
        public static let unknownAdvertisingIdentifier = Status(0x42)

        public var isSuccess: Bool { rawValue == 0 }

        public var description: String {
            let name: String = switch rawValue {
            case 0x00: "success"
            case 0x01: "unknown HCI command"
            case 0x02: "unknown connection identifier"
            case 0x03: "hardware failure"
            case 0x05: "authentication failure"
            case 0x06: "PIN or key missing"
            case 0x07: "memory capacity exceeded"
            case 0x08: "connection timeout"
            case 0x09: "connection limit exceeded"
            case 0x0C: "command disallowed"
            case 0x0D: "rejected: limited resources"
            case 0x11: "unsupported feature or parameter value"
            case 0x12: "invalid HCI command parameters"
            case 0x13: "remote user terminated connection"
            case 0x14: "remote device terminated: low resources"
            case 0x15: "remote device terminated: power off"
            case 0x16: "connection terminated by local host"
            case 0x1A: "unsupported remote feature"
            case 0x1F: "unspecified error"
            case 0x22: "LL response timeout"
            case 0x23: "LL procedure collision"
            case 0x28: "instant passed"
            case 0x2F: "insufficient security"
            case 0x3A: "controller busy"
            case 0x3B: "unacceptable connection parameters"
            case 0x3C: "advertising timeout"
            case 0x3D: "connection terminated due to MIC failure"
            case 0x3E: "connection failed to be established"
            case 0x42: "unknown advertising identifier"
            default: "error"
            }
            let hex = String(rawValue, radix: 16)
            return "\(name) (0x\(hex.count < 2 ? "0" : "")\(hex))"
        }
    }
}
