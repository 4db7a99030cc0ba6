extension VigilConfiguration {
    /// Where the Bluetooth controller is, from `[bluetooth] hci`:
    /// `hciN` (Linux HCI user channel), `tcp:HOST:PORT` (H4 over TCP, e.g. a Bumble virtual
    /// controller), `serial:/dev/ttyX[@baud][,rtscts]` (H4 over a UART), `btsnoop:FILE` (replay
    /// a capture). The spellings follow Bumble's transport names where they overlap.
    public enum Transport: Hashable, Sendable, CustomStringConvertible {
        case userChannel(index: UInt16)
        case tcp(host: String, port: UInt16)
        case serial(path: String, baud: Int, flowControl: Bool)
        case btsnoop(path: String)

        /// The baud rates the serial port accepts. This mirrors `Platform.SerialPort
        /// .supportedBaudRates` (App cannot import Platform), so a bad rate is a config error
        /// at start-up instead of an open() failure later.
        public static let supportedBaudRates = [
            1200, 2400, 4800, 9600, 19200, 38400, 57600, 115_200, 230_400, 460_800, 500_000, 576_000,
            921_600, 1_000_000, 1_152_000, 1_500_000, 2_000_000, 2_500_000, 3_000_000,
        ]

        /// 115200 baud: the rate HCI UART controllers come up at (BlueZ btattach's default too).
        public static let defaultBaudRate = 115_200

        public enum ParseError: Error, Hashable, Sendable, CustomStringConvertible {
            case empty
            case unknownForm(String)
            case missingDeviceIndex
            case invalidDeviceIndex(String)
            case missingHost
            case missingPort
            case invalidPort(String)
            case portOutOfRange(String)
            case ipv6NeedsBrackets(String)
            case missingPath(scheme: String)
            case relativePath(String)
            case invalidBaud(String)
            case unsupportedBaud(String)
            case unknownSerialOption(String)

            public var description: String {
                switch self {
                case .empty:
                    "is empty; write hciN, tcp:HOST:PORT, serial:/dev/ttyX[@baud][,rtscts] or btsnoop:FILE"
                case .unknownForm(let text):
                    "\(TOML.quoted(text)) is not hciN, tcp:HOST:PORT, serial:/dev/ttyX[@baud][,rtscts] or btsnoop:FILE"
                case .missingDeviceIndex:
                    "\"hci\" needs the controller number, e.g. hci0"
                case .invalidDeviceIndex(let text):
                    "\(TOML.quoted(text)) is not a controller number 0-65535 (e.g. hci0)"
                case .missingHost:
                    "tcp: needs a host, e.g. tcp:127.0.0.1:1234"
                case .missingPort:
                    "tcp: needs a port after the host, e.g. tcp:127.0.0.1:1234"
                case .invalidPort(let text):
                    "port \(TOML.quoted(text)) is not a number"
                case .portOutOfRange(let port):
                    "port \(port) is out of range 1-65535"
                case .ipv6NeedsBrackets(let host):
                    "IPv6 address \(host) must be in brackets, e.g. tcp:[::1]:1234"
                case .missingPath(let scheme):
                    "\(scheme): needs a path, e.g. \(scheme == "serial" ? "serial:/dev/ttyAMA0" : "btsnoop:/var/lib/vigil/capture.btsnoop")"
                case .relativePath(let path):
                    "path \(TOML.quoted(path)) must be absolute (start with /)"
                case .invalidBaud(let text):
                    "baud rate \(TOML.quoted(text)) is not a number"
                case .unsupportedBaud(let baud):
                    "\(baud) baud is not supported; use one of "
                        + Transport.supportedBaudRates.map(String.init).joined(separator: ", ")
                case .unknownSerialOption(let option):
                    "unknown serial option \(TOML.quoted(option)) (the only option is rtscts)"
                }
            }
        }

        /// Parses the `hci` setting.
        public init(parsing text: String) throws(ParseError) {
            if text.isEmpty { throw .empty }
            if text.hasPrefix("tcp:") {
                self = try Self.parseTCP(text.dropFirst(4))
            } else if text.hasPrefix("serial:") {
                self = try Self.parseSerial(text.dropFirst(7))
            } else if text.hasPrefix("btsnoop:") {
                self = .btsnoop(path: try Self.absolutePath(text.dropFirst(8), scheme: "btsnoop"))
            } else if text.hasPrefix("hci") {
                let digits = text.dropFirst(3)
                if digits.isEmpty { throw .missingDeviceIndex }
                guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let index = UInt16(digits) else {
                    throw .invalidDeviceIndex(String(digits))
                }
                self = .userChannel(index: index)
            } else {
                throw .unknownForm(text)
            }
        }

        private static func parseTCP(_ rest: Substring) throws(ParseError) -> Transport {
            let host: Substring
            let portText: Substring
            if rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { throw .unknownForm("tcp:" + rest) }
                host = rest[rest.index(after: rest.startIndex)..<close]
                let after = rest[rest.index(after: close)...]
                guard after.hasPrefix(":") else { throw .missingPort }
                portText = after.dropFirst()
            } else {
                guard let colon = rest.lastIndex(of: ":") else {
                    if rest.isEmpty { throw .missingHost }
                    throw .missingPort
                }
                host = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
                if host.contains(":") { throw .ipv6NeedsBrackets(String(host)) }
            }
            if host.isEmpty { throw .missingHost }
            if portText.isEmpty { throw .missingPort }
            guard portText.allSatisfy({ $0.isASCII && $0.isNumber }) else { throw .invalidPort(String(portText)) }
            // Int() is nil for digits beyond Int's range: out of range too.
            guard let port = Int(portText), (1...65535).contains(port) else { throw .portOutOfRange(String(portText)) }
            return .tcp(host: String(host), port: UInt16(port))
        }

        private static func parseSerial(_ rest: Substring) throws(ParseError) -> Transport {
            let parts = rest.split(separator: ",", omittingEmptySubsequences: false)
            var flowControl = false
            for option in parts.dropFirst() {
                guard option == "rtscts" else { throw .unknownSerialOption(String(option)) }
                flowControl = true
            }
            var pathText = parts[0]
            var baud = defaultBaudRate
            if let at = pathText.lastIndex(of: "@") {
                let baudText = pathText[pathText.index(after: at)...]
                pathText = pathText[..<at]
                guard !baudText.isEmpty, baudText.allSatisfy({ $0.isASCII && $0.isNumber }) else {
                    throw .invalidBaud(String(baudText))
                }
                guard let value = Int(baudText), supportedBaudRates.contains(value) else {
                    throw .unsupportedBaud(String(baudText))
                }
                baud = value
            }
            return .serial(path: try absolutePath(pathText, scheme: "serial"), baud: baud, flowControl: flowControl)
        }

        private static func absolutePath(_ path: Substring, scheme: String) throws(ParseError) -> String {
            if path.isEmpty { throw .missingPath(scheme: scheme) }
            guard path.hasPrefix("/") else { throw .relativePath(String(path)) }
            return String(path)
        }

        /// The setting as it would be written in the file (parses back to the same value).
        public var description: String {
            switch self {
            case .userChannel(let index): "hci\(index)"
            case .tcp(let host, let port): host.contains(":") ? "tcp:[\(host)]:\(port)" : "tcp:\(host):\(port)"
            case .serial(let path, let baud, let flowControl): "serial:\(path)@\(baud)" + (flowControl ? ",rtscts" : "")
            case .btsnoop(let path): "btsnoop:\(path)"
            }
        }
    }
}
