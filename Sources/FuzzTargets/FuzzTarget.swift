import Transmitters

/// One libFuzzer entry point: a name (`scripts/fuzz h4`, the corpus folder `Fuzz/corpus/h4`)
/// and a function that feeds arbitrary bytes to the real decoding API the app uses.
///
/// A target ignores thrown errors: a typed error is the correct answer to garbage. What counts
/// is a trap (bounds, overflow, force-unwrap, precondition), a sanitizer report, or a hang, and
/// a few targets add oracles of their own (`FuzzCheck`) for properties a decoder must keep.
public struct FuzzTarget: Sendable {
    public let name: String
    /// What the target drives, for `vigil-fuzz list` and the README.
    public let summary: String
    public let run: @Sendable (UnsafeRawBufferPointer) -> Void

    public init(name: String, summary: String, run: @escaping @Sendable (UnsafeRawBufferPointer) -> Void) {
        self.name = name
        self.summary = summary
        self.run = run
    }

    /// Runs the target on an array (replay and tests).
    public func run(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { run($0) }
    }

    /// Every registered target, in the order `scripts/fuzz all` runs them.
    public static let all: [FuzzTarget] = [
        h4, hciEvent, aclL2CAP, att, smp, advertising,
        dexcom, libre, xbridge, glucoseMeter, cgmService, heartRate, sensorTag,
        transmitterTypes, btsnoop, config, serialCommand, host, http, httpClient, json,
    ]

    /// The target each transmitter type declares for its decoders and driver
    /// (`TransmitterDeclaration.fuzzTarget`), by type name: each must be one of `all`.
    public static var declaredByTransmitterTypes: [(type: String, target: String)] {
        TransmitterCatalog.builtIn.entries.map { ($0.name, $0.declaration.fuzzTarget) }
    }

    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }
}

/// An oracle failed: the decoder returned something that contradicts its own contract. Traps
/// on purpose, so libFuzzer records the input as a crash.
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #fileID, line: UInt = #line) {
    if !condition { fatalError("fuzz oracle: \(message())", file: file, line: line) }
}
