/// Random bytes fit for secrets (the page's access token): the standard library's
/// `SystemRandomNumberGenerator`, which on Linux is the kernel's getrandom(2), blocking only
/// until the kernel's pool is first seeded at boot and never failing after.
public enum SecureRandom {
    public static func bytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next() as UInt64) { bytes.append(contentsOf: $0.prefix(count - bytes.count)) }
        }
        return bytes
    }
}
