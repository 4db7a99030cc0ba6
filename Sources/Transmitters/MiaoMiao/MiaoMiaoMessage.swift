/// MiaoMiao bridge commands and responses on the Nordic UART Service
/// (docs/protocols/miaomiao-bubble.md §MiaoMiao; LibreTransmitter MiaomiaoTransmitter.swift header
/// comments, cross-checked with xDrip Tomato.java and xdripswift CGMMiaoMiaoTransmitter.swift).
public enum MiaoMiao {
    /// Central → bridge.
    public enum Command: Hashable, Sendable {
        /// `F0`: send all data now, then periodically (every 5 minutes by default).
        case startReading
        /// `D1 nn`: set the reading interval to nn minutes.
        case setInterval(minutes: UInt8)
        /// `D3 01` accepts a new sensor, `D3 00` refuses it.
        case confirmNewSensor(Bool)

        public var bytes: [UInt8] {
            switch self {
            case .startReading: [0xF0]
            case let .setInterval(minutes): [0xD1, minutes]
            case let .confirmNewSensor(accept): [0xD3, accept ? 0x01 : 0x00]
            }
        }
    }

    /// The first byte of a bridge → central message that is not a data continuation.
    public enum ResponseCode: UInt8, Hashable, Sendable {
        /// Start of the multi-notification data packet (`MiaoMiaoPacket`).
        case dataPacket = 0x28
        /// A new sensor is on the bridge; it waits for `D3 01`.
        case newSensor = 0x32
        case noSensor = 0x34
        /// Answer to `D1`: `D1 01` success, `D1 00` failure.
        case intervalResponse = 0xD1
    }
}
