import Bluetooth
import Testing
import Wire
@testable import SMP

/// Key distribution PDUs (Core v5.4 Vol 3 Part H §3.6.2–3.6.6); layouts from the spec tables.
struct KeyDistributionPDUsTests {
    static let key = [UInt8](0xA0...0xAF)

    @Test func encryptionInformationCarriesTheLTK() throws {
        let info = try SMP.EncryptionInformation(decoding: [0x06] + Self.key)
        #expect(info.longTermKey == Self.key)
        #expect(info.encoded == [0x06] + Self.key)
    }

    @Test func centralIdentificationIsLittleEndianEDIVThenRand() throws {
        let bytes = [UInt8](hex: "07 34 12 88 77 66 55 44 33 22 11")
        let id = try SMP.CentralIdentification(decoding: bytes)
        #expect(id.ediv == 0x1234)
        #expect(id.rand == 0x1122_3344_5566_7788)
        #expect(id.encoded == bytes)
    }

    @Test func identityInformationAndSigningInformationCarryKeys() throws {
        #expect(try SMP.IdentityInformation(decoding: [0x08] + Self.key).identityResolvingKey == Self.key)
        #expect(SMP.IdentityInformation(identityResolvingKey: Self.key).encoded == [0x08] + Self.key)
        #expect(try SMP.SigningInformation(decoding: [0x0A] + Self.key).signatureKey == Self.key)
        #expect(SMP.SigningInformation(signatureKey: Self.key).encoded == [0x0A] + Self.key)
    }

    @Test(arguments: [(UInt8(0), AddressType.public), (1, .random)])
    func identityAddressInformation(typeOctet: UInt8, type: AddressType) throws {
        let bytes: [UInt8] = [0x09, typeOctet, 0x56, 0x34, 0x12, 0xDC, 0x1B, 0xC0]
        let info = try SMP.IdentityAddressInformation(decoding: bytes)
        #expect(info.identityAddress == DeviceAddress(Address("C0:1B:DC:12:34:56")!, type: type))
        #expect(info.encoded == bytes)
    }

    @Test(arguments: [
        ([0x06] + [UInt8](repeating: 0, count: 15), SMP.PDUError.wrongLength(.encryptionInformation, expected: 17, actual: 16)),
        ([0x07, 0x34, 0x12], .wrongLength(.centralIdentification, expected: 11, actual: 3)),
        ([0x08] + [UInt8](repeating: 0, count: 17), .wrongLength(.identityInformation, expected: 17, actual: 18)),
        ([0x09, 0x02, 1, 2, 3, 4, 5, 6], .invalidValue(.identityAddressInformation, field: "address type", value: 2)),
        ([0x09, 0x00, 1, 2, 3, 4, 5], .wrongLength(.identityAddressInformation, expected: 8, actual: 7)),
        ([0x0A], .wrongLength(.signingInformation, expected: 17, actual: 1)),
    ])
    func rejectsMalformed(bytes: [UInt8], error: SMP.PDUError) {
        #expect(throws: error) { try SMP.Command(decoding: bytes) }
    }
}
