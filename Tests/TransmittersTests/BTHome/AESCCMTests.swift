import Testing
import Wire
@testable import Transmitters

@Suite struct AESCCMTests {
    /// RFC 3610 §8, Packet Vector #1: 8-byte header as associated data, 23-byte payload,
    /// M = 8, L = 2. Expected output re-computed with Python `cryptography` AESCCM(tag_length=8).
    @Test func rfc3610PacketVector1() {
        let key = [UInt8](hex: "C0C1C2C3C4C5C6C7C8C9CACBCCCDCECF")
        let nonce = [UInt8](hex: "00000003020100A0A1A2A3A4A5")
        let packet = (0x00...0x1E).map { UInt8($0) }
        let header = Array(packet[..<8])
        let payload = Array(packet[8...])
        let expected = [UInt8](hex: "588C979A61C663D2F066D0C2C0F989806D5F6B61DAC38417E8D12CFDF926E0")
        let sealed = AESCCM.seal(payload, key: key, nonce: nonce, associatedData: header, tagLength: 8)
        #expect(sealed == expected)
        #expect(AESCCM.open(sealed, key: key, nonce: nonce, associatedData: header, tagLength: 8) == payload)
    }

    /// BTHome parameters (13-byte nonce, 4-byte MIC, no associated data). Vector computed with
    /// Python `cryptography` 46: AESCCM(key, tag_length=4).encrypt(nonce, 02CA0903BF13, None).
    @Test func bthomeShapedVector() {
        let key = [UInt8](hex: "231d39c1d7cc1ab1aee224cd096db932")
        let nonce = [UInt8](hex: "5448e68f80a5d2fc4133221100")
        let payload: [UInt8] = [0x02, 0xCA, 0x09, 0x03, 0xBF, 0x13]
        let expected = [UInt8](hex: "e445f3c9962b 6c7c4519")
        #expect(AESCCM.seal(payload, key: key, nonce: nonce, tagLength: 4) == expected)
        #expect(AESCCM.open(expected, key: key, nonce: nonce, tagLength: 4) == payload)
    }

    @Test func anyChangeFailsAuthentication() {
        let key = [UInt8](hex: "231d39c1d7cc1ab1aee224cd096db932")
        let nonce = [UInt8](hex: "5448e68f80a5d2fc4133221100")
        let sealed = [UInt8](hex: "e445f3c9962b6c7c4519")
        for index in sealed.indices {
            var altered = sealed
            altered[index] ^= 0x01
            #expect(AESCCM.open(altered, key: key, nonce: nonce, tagLength: 4) == nil, "bit flip at \(index)")
        }
        var otherKey = key
        otherKey[15] ^= 0x80
        #expect(AESCCM.open(sealed, key: otherKey, nonce: nonce, tagLength: 4) == nil)
        var otherNonce = nonce
        otherNonce[12] = 0x01
        #expect(AESCCM.open(sealed, key: key, nonce: otherNonce, tagLength: 4) == nil)
        // Shorter than the tag: nothing to open.
        #expect(AESCCM.open([0x01, 0x02, 0x03], key: key, nonce: nonce, tagLength: 4) == nil)
    }

    @Test(arguments: [0, 1, 15, 16, 17, 40])
    func roundTripsEveryLength(length: Int) {
        let key = (0..<16).map { UInt8($0 * 7) }
        let nonce = (0..<13).map { UInt8($0) }
        let message = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 31 + 5) }
        let sealed = AESCCM.seal(message, key: key, nonce: nonce, tagLength: 4)
        #expect(sealed.count == length + 4)
        #expect(AESCCM.open(sealed, key: key, nonce: nonce, tagLength: 4) == message)
    }
}
