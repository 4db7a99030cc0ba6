import Crypto
import _CryptoExtras

/// AES-128 in CCM mode (RFC 3610: counter mode for secrecy, CBC-MAC for authenticity), built
/// on the single-block AES function because swift-crypto offers no CCM. BTHome v2 encrypts
/// with it: a 13-byte nonce, no associated data and a 4-byte MIC (docs/protocols/bthome.md).
///
/// Byte order is the RFC's: the key, nonce and blocks as they appear in the RFC's vectors and
/// on air in BTHome (unlike SMP, nothing is reversed here).
public enum AESCCM {
    /// Encrypts and authenticates: the ciphertext followed by the `tagLength`-byte tag.
    /// - Precondition: a 16-byte key, a nonce of 7...13 bytes, an even tag length 4...16, and a
    ///   message short enough for the length field (2^(8·(15 − nonce length)) bytes). Callers
    ///   pass lengths they built themselves, never lengths from the air.
    public static func seal(_ message: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = [], tagLength: Int) -> [UInt8] {
        checkParameters(key: key, nonce: nonce, tagLength: tagLength, messageLength: message.count)
        let tag = authenticate(message, key: key, nonce: nonce, associatedData: associatedData, tagLength: tagLength)
        let stream = keyStream(key: key, nonce: nonce, count: message.count)
        let s0 = block(key: key, counterBlock(nonce: nonce, counter: 0))
        return zip(message, stream).map { $0 ^ $1 } + zip(tag, s0).map { $0 ^ $1 }
    }

    /// Decrypts and verifies; nil when the tag does not match (wrong key, wrong nonce, or
    /// altered data) or `sealed` is shorter than the tag.
    public static func open(_ sealed: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8] = [], tagLength: Int) -> [UInt8]? {
        guard sealed.count >= tagLength else { return nil }
        let count = sealed.count - tagLength
        checkParameters(key: key, nonce: nonce, tagLength: tagLength, messageLength: count)
        let stream = keyStream(key: key, nonce: nonce, count: count)
        let message = zip(sealed[..<count], stream).map { $0 ^ $1 }
        let s0 = block(key: key, counterBlock(nonce: nonce, counter: 0))
        let received = zip(sealed[count...], s0).map { $0 ^ $1 }
        let expected = authenticate(message, key: key, nonce: nonce, associatedData: associatedData, tagLength: tagLength)
        // Compare every byte whatever the first difference, so timing says nothing about the tag.
        var difference: UInt8 = 0
        for (a, b) in zip(received, expected) { difference |= a ^ b }
        return difference == 0 ? message : nil
    }

    private static func checkParameters(key: [UInt8], nonce: [UInt8], tagLength: Int, messageLength: Int) {
        precondition(key.count == 16, "AES-128-CCM takes a 16-byte key")
        precondition((7...13).contains(nonce.count), "CCM nonces are 7 to 13 bytes (RFC 3610 §2)")
        precondition((4...16).contains(tagLength) && tagLength % 2 == 0, "CCM tags are 4, 6, ..., 16 bytes (RFC 3610 §2)")
        let lengthBytes = 15 - nonce.count
        precondition(lengthBytes >= 8 || messageLength < 1 << (8 * lengthBytes), "message too long for the CCM length field")
    }

    /// CBC-MAC over B0, the encoded associated data and the message (RFC 3610 §2.2).
    private static func authenticate(_ message: [UInt8], key: [UInt8], nonce: [UInt8], associatedData: [UInt8], tagLength: Int) -> [UInt8] {
        let lengthBytes = 15 - nonce.count
        let flags = UInt8(associatedData.isEmpty ? 0 : 0x40) | UInt8((tagLength - 2) / 2) << 3 | UInt8(lengthBytes - 1)
        var b0 = [flags] + nonce
        for i in (0..<lengthBytes).reversed() { b0.append(UInt8(truncatingIfNeeded: message.count >> (8 * i))) }
        var input: [UInt8] = []
        if !associatedData.isEmpty {
            // l(a): two bytes below 2^16 − 2^8, else 0xFFFE and four bytes (RFC 3610 §2.2).
            let count = associatedData.count
            input += count < 0xFF00
                ? [UInt8(count >> 8), UInt8(truncatingIfNeeded: count)]
                : [0xFF, 0xFE] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: count >> (8 * $0)) }
            input += associatedData
            input += padding(input.count)
        }
        input += message + padding(message.count)
        var x = block(key: key, b0)
        var offset = 0
        while offset < input.count {
            for i in 0..<16 { x[i] ^= input[offset + i] }
            x = block(key: key, x)
            offset += 16
        }
        return Array(x[..<tagLength])
    }

    /// S1, S2, ... (RFC 3610 §2.3), as many bytes as the message has.
    private static func keyStream(key: [UInt8], nonce: [UInt8], count: Int) -> [UInt8] {
        var stream: [UInt8] = []
        var counter = 1
        while stream.count < count {
            stream += block(key: key, counterBlock(nonce: nonce, counter: counter))
            counter += 1
        }
        return Array(stream.prefix(count))
    }

    /// A_i = flags (L − 1) ‖ nonce ‖ i, with i big-endian in L bytes.
    private static func counterBlock(nonce: [UInt8], counter: Int) -> [UInt8] {
        let lengthBytes = 15 - nonce.count
        var a = [UInt8(lengthBytes - 1)] + nonce
        for i in (0..<lengthBytes).reversed() { a.append(UInt8(truncatingIfNeeded: counter >> (8 * i))) }
        return a
    }

    private static func padding(_ count: Int) -> [UInt8] { Array(repeating: 0, count: (16 - count % 16) % 16) }

    /// One AES-128 block encryption.
    static func block(key: [UInt8], _ input: [UInt8]) -> [UInt8] {
        var state = input
        do {
            try AES.permute(&state, key: SymmetricKey(data: key))
        } catch {
            // Only a wrong block or key size makes it throw, and both are fixed at 16 here.
            preconditionFailure("AES rejected a 16-byte block: \(error)")
        }
        return state
    }
}
