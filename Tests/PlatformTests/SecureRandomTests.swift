import Testing
@testable import Platform

@Suite struct SecureRandomTests {
    @Test(arguments: [0, 1, 7, 8, 9, 32, 100])
    func exactlyTheBytesAskedFor(count: Int) {
        #expect(SecureRandom.bytes(count).count == count)
    }

    /// Two draws of 32 bytes agree with probability 2^-256; 4,096 bytes use every byte value
    /// with overwhelming probability (a generator stuck on a few values would not).
    @Test func drawsDifferAndSpreadOverEveryByteValue() {
        #expect(SecureRandom.bytes(32) != SecureRandom.bytes(32))
        #expect(Set(SecureRandom.bytes(4096)).count > 240)
    }
}
