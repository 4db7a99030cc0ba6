import Wire

/// An HCI command: a fixed opcode and parameters (Core v5.4 Vol 4 Part E §5.4.1).
///
/// Each command is a value that encodes itself; the controller side (our simulator, fuzzers)
/// decodes the same type, so every command layout is written exactly once.
public protocol HCICommand: Sendable {
    static var opcode: HCI.Opcode { get }
    func encodeParameters(into writer: inout ByteWriter)
    init(parameters: inout ByteReader) throws(WireError)
}

extension HCICommand {
    /// Opcode · parameter length · parameters: the command packet without the H4 indicator.
    public var commandBytes: [UInt8] {
        var params = ByteWriter()
        encodeParameters(into: &params)
        var w = ByteWriter(capacity: 3 + params.bytes.count)
        w.write(Self.opcode.rawValue)
        w.write(UInt8(params.bytes.count))
        w.write(contentsOf: params.bytes)
        return w.bytes
    }

    /// Decodes a command packet (without H4 indicator) of this type; the opcode must match.
    public static func decode(commandBytes bytes: [UInt8]) throws(WireError) -> Self {
        var r = ByteReader(bytes)
        let opcode = try r.readUInt16("opcode")
        guard opcode == Self.opcode.rawValue else { throw .invalidValue(field: "opcode", value: Int(opcode)) }
        let length = Int(try r.readUInt8("parameter length"))
        guard r.remainingCount == length else {
            throw .malformed("parameter length \(length) but \(r.remainingCount) byte(s) follow")
        }
        let value = try Self(parameters: &r)
        try r.expectEnd("command parameters")
        return value
    }
}

/// Commands with no parameters.
public protocol HCIParameterlessCommand: HCICommand { init() }

extension HCIParameterlessCommand {
    public func encodeParameters(into writer: inout ByteWriter) {}
    public init(parameters: inout ByteReader) throws(WireError) { self.init() }
}

extension HCI {
    /// A command packet split into opcode and parameters, for code that handles any command
    /// (the command queue, the simulator, btsnoop printing).
    public struct CommandPacket: Sendable, Equatable {
        public var opcode: Opcode
        public var parameters: [UInt8]

        public init(opcode: Opcode, parameters: [UInt8]) {
            // Parameter_Total_Length is one octet (Vol 4 Part E §5.4.1): longer is a bug in the caller.
            precondition(parameters.count <= 255, "HCI command parameters exceed 255 bytes")
            self.opcode = opcode
            self.parameters = parameters
        }

        public init(_ command: some HCICommand) {
            var w = ByteWriter()
            command.encodeParameters(into: &w)
            self.init(opcode: type(of: command).opcode, parameters: w.bytes)
        }

        public init(bytes: [UInt8]) throws(WireError) {
            var r = ByteReader(bytes)
            opcode = Opcode(rawValue: try r.readUInt16("opcode"))
            let length = Int(try r.readUInt8("parameter length"))
            guard r.remainingCount == length else {
                throw .malformed("command parameter length \(length) but \(r.remainingCount) byte(s) follow")
            }
            parameters = r.readRemaining()
        }

        public var bytes: [UInt8] {
            var w = ByteWriter(capacity: 3 + parameters.count)
            w.write(opcode.rawValue)
            w.write(UInt8(truncatingIfNeeded: parameters.count))
            w.write(contentsOf: parameters)
            return w.bytes
        }

        /// Decodes the parameters as `C` if the opcode is `C`'s.
        public func decode<C: HCICommand>(as type: C.Type) throws(WireError) -> C? {
            guard opcode == C.opcode else { return nil }
            var r = ByteReader(parameters)
            let value = try C(parameters: &r)
            try r.expectEnd("command parameters")
            return value
        }
    }
}
