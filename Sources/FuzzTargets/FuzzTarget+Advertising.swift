import Bluetooth
import Clocks
import Readings
import Transmitters

extension FuzzTarget {
    /// Advertising data (Core Supplement Part A §1; Core v5.4 Vol 3 Part C §11) and every
    /// broadcast decoder behind it: BTHome v2 plain and encrypted (bthome.io; AES-CCM),
    /// RuuviTag data format 5, and the matchers that pick connectable transmitters.
    /// Input: a mode octet, a split octet (advertising data | scan response), then the data.
    ///
    /// The encrypted BTHome path is reached by sealing fuzz bytes with a fixed key, so the
    /// fuzzer explores what a genuine device's decrypted objects can contain (it cannot forge
    /// a MIC by chance).
    static let advertising = FuzzTarget(name: "advertising", summary: "AdvertisingData, AdvertisementSummary, BTHome (plain and AES-CCM), Ruuvi format 5, TransmitterMatcher") { buffer in
        var input = FuzzInput(buffer)
        let mode = input.byte()
        let split = Int(input.byte())
        let data = input.rest()
        let cut = min(split, data.count)
        let address = DeviceAddress(Address(value: 0xA4_C1_38_12_34_56), type: mode & 1 == 0 ? .public : .random)
        let advertising = try? AdvertisingData(data[..<cut])
        let scanResponse = cut < data.count ? try? AdvertisingData(data[cut...]) : nil
        for parsed in [advertising, scanResponse].compactMap({ $0 }) {
            for _ in parsed.structures {}
            _ = (parsed.name, parsed.serviceUUIDs, parsed.uuidLists, parsed.serviceData, parsed.manufacturerData)
            _ = parsed.serviceData(for: BTHomePacket.serviceUUID)
        }
        let summary = AdvertisementSummary(address: address, advertising: advertising, scanResponse: scanResponse, rssi: -60)
        decodeBroadcast(summary, mode: mode)
        for type in TransmitterRegistry.builtIn.types {
            _ = TransmitterMatcher(profile: type.profile, remembered: mode & 2 == 0 ? nil : address).matches(summary)
        }
        // The whole input as BTHome and Ruuvi payloads, where the recognisers would not reach.
        _ = try? BTHomePacket(decoding: data, advertiser: address.address, key: mode & 4 == 0 ? nil : bthomeKey)
        _ = try? RuuviDataFormat5(decoding: data)
        // Fuzz bytes as the plaintext of an authentic encrypted BTHome packet.
        if !data.isEmpty {
            let counter = UInt32(truncatingIfNeeded: split) | UInt32(mode) << 8
            let info = BTHomePacket.DeviceInformation(encrypted: true, triggerBased: mode & 8 != 0)
            let counterBytes = (0..<4).map { UInt8(truncatingIfNeeded: counter >> (8 * UInt32($0))) }
            let nonce = BTHomePacket.nonce(mac: address.address, deviceInformation: info, counterBytes: counterBytes)
            let sealed = AESCCM.seal(data, key: bthomeKey, nonce: nonce, tagLength: BTHomePacket.micLength)
            let serviceData = [info.rawValue] + sealed[..<data.count] + counterBytes + sealed[data.count...]
            let packet = try? BTHomePacket(decoding: serviceData, advertiser: address.address, key: bthomeKey)
            fuzzCheck(packet != nil || (try? BTHomePacket(decoding: [0x40] + data, advertiser: address.address)) == nil,
                      "an authentic encrypted BTHome packet fails where the same objects in the clear decode")
            let encrypted = AdvertisementSummary(address: address, serviceData: [BTHomePacket.serviceUUID: serviceData])
            decodeBroadcast(encrypted, mode: mode)
        }
    }

    /// An arbitrary fixed BTHome bind key: any 16 bytes serve, the packets are sealed here.
    static let bthomeKey: [UInt8] = [0x23, 0x1D, 0x39, 0xC1, 0xD7, 0xCC, 0x1A, 0xB1, 0xAE, 0xE2, 0x24, 0xCD, 0x09, 0x6D, 0xB9, 0x32]

    /// Every built-in broadcast decoder on one advertisement, twice (the second is a duplicate
    /// and must yield nothing new), then its no-data watchdog.
    static func decodeBroadcast(_ summary: AdvertisementSummary, mode: UInt8) {
        let now = MonotonicInstant.zero + .seconds(1)
        var decoders: [any BroadcastDecoder] = [
            BTHomeDecoder(device: DeviceID("bthome"), configuration: .init(key: mode & 16 == 0 ? nil : bthomeKey)),
            RuuviDecoder(device: DeviceID("ruuvi")),
        ]
        for type in BroadcastRegistry.builtIn.types {
            if let decoder = try? type.makeDecoder(TransmitterConfiguration(typeName: type.name)) { decoders.append(decoder) }
        }
        for var decoder in decoders {
            guard decoder.recognises(summary) else { continue }
            decoder.start(at: .zero)
            _ = decoder.decode(summary, at: now)
            _ = decoder.decode(summary, at: now + .seconds(1))
            if let deadline = decoder.nextDeadline {
                _ = decoder.handleDeadline(at: deadline)
                fuzzCheck(decoder.nextDeadline.map { $0 > deadline } ?? true, "broadcast watchdog still due after handling it")
            }
        }
    }
}
