extension DexcomG7 {
    /// hash(x) = the first 8 bytes of AES-128-ECB(session key, x ‖ x): the G6's challenge hash
    /// keyed by J-PAKE's session key (docs/protocols/dexcom-g7.md §AES challenge). It checks the
    /// sensor's answer to our 8 bytes and answers the sensor's.
    public static func challengeAnswer(_ eight: [UInt8], sessionKey: [UInt8]) -> [UInt8] {
        Dexcom.hash(eight, key: sessionKey)
    }
}
