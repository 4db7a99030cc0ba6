import Bluetooth

/// Everything `/etc/vigil/vigil.conf` says, complete and validated: Vigil starts from one of
/// these or not at all, never from a half-read file. Every field has a default, so an empty
/// file is a valid configuration (with no devices). `packaging/vigil.conf` lists every key with
/// its default and must parse to exactly `VigilConfiguration()`.
public struct VigilConfiguration: Equatable, Sendable {
    /// Where the platform reads the file from.
    public static let defaultPath = "/etc/vigil/vigil.conf"

    /// `[bluetooth]`
    public struct Bluetooth: Equatable, Sendable {
        /// `hci`: the controller.
        public var transport: Transport
        /// `btsnoop-log`: write every HCI packet to this btsnoop file; nil (`""`) = off.
        public var btsnoopLog: String?
        /// `scan`
        public var scan: ScanMode
        /// `static-address`: our random static address; nil (`""`) = generated once and kept
        /// in the state directory.
        public var staticAddress: Address?

        public init(
            transport: Transport = .userChannel(index: 0), btsnoopLog: String? = nil,
            scan: ScanMode = .passive, staticAddress: Address? = nil
        ) {
            self.transport = transport
            self.btsnoopLog = btsnoopLog
            self.scan = scan
            self.staticAddress = staticAddress
        }
    }

    /// `[bluetooth] scan`: passive scanning only listens; active also asks for scan responses
    /// (some transmitters put their name there); off relies on configured addresses.
    public enum ScanMode: String, CaseIterable, Sendable {
        case passive, active, off
    }

    /// `[storage]`
    public struct Storage: Equatable, Sendable {
        /// `state-dir`: bonds, remembered transmitters, the generated static address.
        public var stateDirectory: String

        public init(stateDirectory: String = "/var/lib/vigil") { self.stateDirectory = stateDirectory }
    }

    /// `[export]`: handing the history over without a network.
    public struct Export: Equatable, Sendable {
        /// `serial`: the tty the serial export protocol answers on ("/dev/ttyGS0" is a Pi Zero
        /// 2 W's USB gadget serial port), with an optional `@baud`; nil: off.
        public var serialPort: String?
        public var serialBaud: Int
        /// `usb`: where a USB stick is mounted, for the button's double press; nil: off.
        public var usbMountPoint: String?

        public init(serialPort: String? = nil, serialBaud: Int = 115_200, usbMountPoint: String? = "/media/usb") {
            self.serialPort = serialPort
            self.serialBaud = serialBaud
            self.usbMountPoint = usbMountPoint
        }
    }

    /// `[status]`: where `vigil status` asks the running daemon.
    public struct Status: Equatable, Sendable {
        /// `socket`: the unix socket the daemon answers on; nil (`""`): no status socket.
        public var socketPath: String?

        public init(socketPath: String? = "/run/vigil/status.sock") { self.socketPath = socketPath }
    }

    /// `[network]`: what every HTTPS exchange (the Nightscout upload, the followers) trusts
    /// (docs/network.md "Configuration").
    public struct Network: Equatable, Sendable {
        /// `ca-file`: a PEM bundle of the certificate authorities a server's certificate must
        /// chain to, as written (relative to the configuration's folder); nil (`""`): the
        /// system's bundle.
        public var caFile: String?
        /// Where `ca-file` was set, for the errors about the file.
        public var caFilePosition: TOML.Position?

        public init(caFile: String? = nil, caFilePosition: TOML.Position? = nil) {
            self.caFile = caFile
            self.caFilePosition = caFilePosition
        }
    }

    /// `[log] level`, least to most severe.
    public enum LogLevel: String, CaseIterable, Comparable, Sendable {
        case debug, info, notice, warning, error

        public static func < (a: Self, b: Self) -> Bool {
            allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
        }
    }

    /// `[log]`
    public struct Log: Equatable, Sendable {
        public var level: LogLevel

        public init(level: LogLevel = .info) { self.level = level }
    }

    /// One `[[device]]`: the keys every transmitter type shares, plus the rest for the type
    /// itself to validate (the transmitter registry owns those).
    public struct Device: Equatable, Sendable {
        /// `type`, required: a registered transmitter type name.
        public var type: String
        /// `name`: match only devices whose advertised name starts with this; nil (absent or
        /// `""`) = any name.
        public var namePrefix: String?
        /// `address`: connect to this address only; nil = any.
        public var address: Address?
        /// `pair`: pair and bond before use.
        public var pair: Bool
        /// `label`: shown in logs and events.
        public var label: String?
        /// Every other key in the table, for the transmitter type to validate. Each value keeps
        /// its position, so the type can report errors at the right line.
        public var options: [String: TOML.Value]
        /// Where each option's key is written, for "unknown key" errors at the key itself.
        public var optionKeyPositions: [String: TOML.Position]
        /// Where the `[[device]]` header is.
        public var position: TOML.Position
        /// A follower type's service and account (`nightscout`, `dexcom-share`, `librelinkup`):
        /// its keys are read into this, not left in `options`.
        public var follower: FollowerSource?

        public init(
            type: String, namePrefix: String? = nil, address: Address? = nil, pair: Bool = false,
            label: String? = nil, options: [String: TOML.Value] = [:],
            optionKeyPositions: [String: TOML.Position] = [:],
            position: TOML.Position = TOML.Position(line: 1, column: 1)
        ) {
            self.type = type
            self.namePrefix = namePrefix
            self.address = address
            self.pair = pair
            self.label = label
            self.options = options
            self.optionKeyPositions = optionKeyPositions
            self.position = position
        }

        /// What to call the device in logs: its label, else its type.
        public var displayName: String { label ?? type }
    }

    public var bluetooth: Bluetooth
    public var storage: Storage
    public var log: Log
    public var export = Export()
    public var status = Status()
    public var network = Network()
    public var devices: [Device]
    /// `[face]` (VigilConfiguration.Face.swift)
    public var face: Face
    /// `[alarms]` (VigilConfiguration.Alarms.swift)
    public var alarms: Alarms
    /// `[web]` (VigilConfiguration.Web.swift); nil (no section): nothing is served.
    public var web: Web?
    /// `[nightscout]` (VigilConfiguration.Nightscout.swift); nil (no section): no upload.
    public var nightscout: Nightscout?
    /// Things in the file that work but deserve a look (a line the board profile does not
    /// list as safe), in file order: Vigil logs them at start and runs.
    public var warnings: [ConfigurationError] = []

    /// The defaults: what an empty file means.
    public init(
        bluetooth: Bluetooth = Bluetooth(), storage: Storage = Storage(), log: Log = Log(), devices: [Device] = [],
        face: Face = Face(), alarms: Alarms = Alarms()
    ) {
        self.bluetooth = bluetooth
        self.storage = storage
        self.log = log
        self.devices = devices
        self.face = face
        self.alarms = alarms
    }
}
