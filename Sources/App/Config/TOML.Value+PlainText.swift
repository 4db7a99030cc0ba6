extension TOML.Value {
    /// The value as a transmitter option string: strings without their quotes, numbers and
    /// booleans as written, arrays comma-separated. Drivers parse options from this text.
    public var plainText: String {
        switch kind {
        case .string(let s): s
        case .integer(let i): String(i)
        case .float(let d): "\(d)"
        case .boolean(let b): b ? "true" : "false"
        case .array(let items): items.map(\.plainText).joined(separator: ",")
        case .table: description
        }
    }
}
