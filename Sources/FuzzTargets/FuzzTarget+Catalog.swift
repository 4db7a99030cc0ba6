import Bluetooth
import Clocks
import Transmitters

extension FuzzTarget {
    /// Every type in `TransmitterCatalog.builtIn`, from its catalog line alone: the first octet
    /// picks the type; a connected type's driver (made with its declaration's `fuzzOptions`)
    /// plays the rest as a `DriverScript` session, a broadcast type's decoder gets each chunk
    /// as the payload its recognition looks for, then its watchdog. A new type is fuzzed from
    /// the moment its line is added, with no list to extend here; a target of its own (named
    /// by `TransmitterDeclaration.fuzzTarget`) can reach deeper, past checks random bytes fail.
    /// The name is spelt out (scripts/fuzzed-code finds targets by their literal name);
    /// `TransmitterDeclaration.catalogFuzzTarget` must equal it (FuzzTargetTests).
    static let transmitterTypes = FuzzTarget(name: "transmitter-types",
                                              summary: "every catalogued transmitter type's driver or broadcast decoder, chosen by the first octet") { buffer in
        var input = FuzzInput(buffer)
        let entries = TransmitterCatalog.builtIn.entries
        let entry = entries[Int(input.byte()) % entries.count]
        switch entry {
        case let .connected(type):
            DriverScript.run(type.makeFuzzDriver(), &input)
        case let .broadcast(type):
            var decoder = type.makeFuzzDecoder()
            var now = MonotonicInstant.zero + .seconds(1)
            decoder.start(at: now)
            let address = DeviceAddress(Address(value: 0xA4_C1_38_00_00_01), type: .public)
            while !input.isAtEnd {
                now = now + .milliseconds(Int64(input.byte()) * 100)
                let payload = input.chunk()
                let advertisement = switch type.recognition {
                case let .serviceData(uuid):
                    AdvertisementSummary(address: address, serviceData: [uuid: payload])
                case let .manufacturerData(company):
                    AdvertisementSummary(address: address, manufacturerData: [company: payload])
                }
                fuzzCheck(decoder.recognises(advertisement), "\(type.name) does not recognise its own kind of payload")
                _ = decoder.decode(advertisement, at: now)
            }
            if let deadline = decoder.nextDeadline {
                _ = decoder.handleDeadline(at: deadline)
                fuzzCheck(decoder.nextDeadline.map { $0 > deadline } ?? true, "\(type.name) watchdog still due after handling it")
            }
        }
    }
}

extension TransmitterType {
    /// The driver the catalog's fuzz target runs: the type configured with its declared
    /// `fuzzOptions`. A type whose declaration does not make a driver fails
    /// `FuzzTargetTests`, so the trap here is never reached by a committed type.
    func makeFuzzDriver() -> any TransmitterDriver {
        let configuration = TransmitterConfiguration(typeName: name, options: declaration.fuzzOptions,
                                                     files: FuzzCredentials.files(forType: name))
        guard let driver = try? makeDriver(configuration) else { fatalError("\(name) rejects its own fuzzOptions") }
        return driver
    }
}

extension BroadcastType {
    /// The decoder the catalog's fuzz target runs (`TransmitterType.makeFuzzDriver`).
    func makeFuzzDecoder() -> any BroadcastDecoder {
        let configuration = TransmitterConfiguration(typeName: name, options: declaration.fuzzOptions)
        guard let decoder = try? makeDecoder(configuration) else { fatalError("\(name) rejects its own fuzzOptions") }
        return decoder
    }
}

extension TransmitterCatalog.Entry {
    /// Whether the declaration's `fuzzOptions` make this type's driver or decoder: the
    /// catalog's fuzz target can run it.
    public var isFuzzable: Bool {
        let configuration = { (declaration: TransmitterDeclaration) in
            TransmitterConfiguration(typeName: self.name, options: declaration.fuzzOptions, files: FuzzCredentials.files(forType: self.name))
        }
        switch self {
        case let .connected(type): return (try? type.makeDriver(configuration(type.declaration))) != nil
        case let .broadcast(type): return (try? type.makeDecoder(configuration(type.declaration))) != nil
        }
    }
}
