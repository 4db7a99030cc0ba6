import Bluetooth
import Testing
import Wire
@testable import SMP

/// Sample data from Core v5.4 Vol 3 Part H §2.2.3/§2.2.4 (c1, s1) and Appendix D (f4, f5, f6,
/// g2), as listed in docs/protocols/smp.md (recomputed independently); g2 and the
/// RFC 4493 vectors were also recomputed here with Python `cryptography` 48.
/// All spec values are MSB-first; `spec(_:)` turns them into the wire order the API takes.
struct CryptoTests {
    @Test func aesMatchesFIPS197AppendixC1() {
        // FIPS-197 C.1: key 000102…0f, plaintext 00112233…ff. e takes wire order, so the
        // spec-order vector is reversed in and out.
        let out = SMP.Crypto.e(key: spec("000102030405060708090a0b0c0d0e0f"), spec("00112233445566778899aabbccddeeff"))
        #expect(out == spec("69c4e0d86a7b0430d8cdb78070b4c55a"))
    }

    @Test(arguments: [
        ("", "bb1d6929e95937287fa37d129b756746"),  // RFC 4493 Example 1
        ("6bc1bee22e409f96e93d7e117393172a", "070a16b46b4d4144f79bdd9dd04a287c"),  // Example 2
        ("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e5130c81c46a35ce411",
         "dfa66747de9ae63030ca32611497c827"),  // Example 3
    ])
    func aesCMACMatchesRFC4493(message: String, mac: String) {
        let key = [UInt8](hex: "2b7e151628aed2a6abf7158809cf4f3c")
        #expect(SMP.Crypto.aesCMAC(key: key, message: [UInt8](hex: message)) == [UInt8](hex: mac))
    }

    @Test func c1MatchesSpecSampleData() {
        // p1 = 05000800000302070710000001010001: pres 05000800000302, preq 07071000000101,
        // rat' 00 (public), iat' 01 (random). p2 = 00000000 ‖ ia A1A2A3A4A5A6 ‖ ra B1B2B3B4B5B6.
        let preq = spec("07071000000101")
        let pres = spec("05000800000302")
        #expect(preq == [0x01, 0x01, 0x00, 0x00, 0x10, 0x07, 0x07])  // code 0x01 first, as sent
        let ia = DeviceAddress(Address(value: 0xA1A2_A3A4_A5A6), type: .random)
        let ra = DeviceAddress(Address(value: 0xB1B2_B3B4_B5B6), type: .public)
        let confirm = SMP.Crypto.c1(
            k: [UInt8](repeating: 0, count: 16), r: spec("5783D52156AD6F0E6388274EC6702EE0"),
            preq: preq, pres: pres, initiator: ia, responder: ra)
        #expect(confirm == spec("1E1E3FEF878988EAD2A74DC5BEF13B86"))
    }

    @Test func c1DependsOnEveryInput() {
        let zero = [UInt8](repeating: 0, count: 16)
        let preq = spec("07071000000101"), pres = spec("05000800000302")
        let ia = DeviceAddress(Address(value: 0xA1A2_A3A4_A5A6), type: .random)
        let ra = DeviceAddress(Address(value: 0xB1B2_B3B4_B5B6), type: .public)
        let base = SMP.Crypto.c1(k: zero, r: zero, preq: preq, pres: pres, initiator: ia, responder: ra)
        var publicIA = ia
        publicIA.type = .public
        #expect(SMP.Crypto.c1(k: zero, r: zero, preq: preq, pres: pres, initiator: publicIA, responder: ra) != base)
        #expect(SMP.Crypto.c1(k: zero, r: zero, preq: pres, pres: preq, initiator: ia, responder: ra) != base)
    }

    @Test func s1MatchesSpecSampleData() {
        let stk = SMP.Crypto.s1(
            k: [UInt8](repeating: 0, count: 16), r1: spec("000F0E0D0C0B0A091122334455667788"),
            r2: spec("010203040506070899AABBCCDDEEFF00"))
        #expect(stk == spec("9A1FE1F0E8B0F49B5B4216AE796DA062"))
    }

    static let u = spec("20b003d2f297be2c5e2c83a7e9f9a5b9eff49111acf4fddbcc0301480e359de6")
    static let v = spec("55188b3d32f6bb9a900afcfbeed4e72a59cb9ac2f19d7cfb6b4fdd49f47fc5fd")
    static let n1 = spec("d5cb8454d177733effffb2ec712baeab")
    static let n2 = spec("a6e8e7cc25a75f6e216583f7ff3dc4cf")
    static let a1 = DeviceAddress(Address(value: 0x5612_3737_BFCE), type: .public)  // 00 ‖ 56123737bfce
    static let a2 = DeviceAddress(Address(value: 0xA713_702D_CFC1), type: .public)  // 00 ‖ a713702dcfc1

    @Test func f4MatchesSpecSampleData() {
        #expect(SMP.Crypto.f4(u: Self.u, v: Self.v, x: Self.n1, z: 0) == spec("f2c916f107a9bd1cf1eda1bea974872d"))
    }

    @Test func f5MatchesSpecSampleData() {
        let w = spec("ec0234a357c8ad05341010a60a397d9b99796b13b4f866f1868d34f373bfa698")
        #expect(SMP.Crypto.f5Key(w: w) == spec("3c128f20de88328897624bdb8dac6989"))
        let (macKey, ltk) = SMP.Crypto.f5(w: w, n1: Self.n1, n2: Self.n2, a1: Self.a1, a2: Self.a2)
        #expect(macKey == spec("2965f176a1084a02fd3f6a20ce636e20"))
        #expect(ltk == spec("6986791169d7cd23980522b594750a38"))
    }

    @Test func f6MatchesSpecSampleData() {
        // IOcap 010102: AuthReq 0x01, OOB flag 0x01, IO capability 0x02.
        let ioCap = SMP.IOCapabilityTriple(
            authenticationRequirements: [.bonding], oobDataPresent: true, ioCapability: .keyboardOnly)
        let check = SMP.Crypto.f6(
            w: spec("2965f176a1084a02fd3f6a20ce636e20"), n1: Self.n1, n2: Self.n2,
            r: spec("12a3343bb453bb5408da42d20c2d0fc8"), ioCap: ioCap, a1: Self.a1, a2: Self.a2)
        #expect(check == spec("e3c473989cd0e8c5d26c0b09da958f61"))
    }

    @Test func g2MatchesSpecSampleData() {
        let value = SMP.Crypto.g2(u: Self.u, v: Self.v, x: Self.n1, y: Self.n2)
        #expect(value == 0x2F9E_D5BA)
        #expect(value % 1_000_000 == 0x2F9E_D5BA % 1_000_000)
    }

    @Test func ahMatchesSpecSampleData() {
        // Vol 3 Part H Appendix D.7: IRK ec0234a3…7d9b, prand 708194 → hash 0dfbaa.
        let irk = spec("ec0234a357c8ad05341010a60a397d9b")
        #expect(SMP.Crypto.ah(k: irk, r: spec("708194")) == spec("0dfbaa"))
        // The resolvable private address 70:81:94:0D:FB:AA (prand ‖ hash; top bits 01).
        #expect(SMP.Crypto.resolves(Address("70:81:94:0D:FB:AA")!, irk: irk))
        #expect(!SMP.Crypto.resolves(Address("70:81:94:0D:FB:AB")!, irk: irk))
        #expect(!SMP.Crypto.resolves(Address("70:81:94:0D:FB:AA")!, irk: [UInt8](repeating: 0, count: 16)))
        // Same hash bits but top bits 11 (static random), so not resolvable.
        #expect(!SMP.Crypto.resolves(Address("F0:81:94:0D:FB:AA")!, irk: irk))
    }

    @Test func maskingZeroesTheMostSignificantOctets() {
        let key = [UInt8](1...16)
        #expect(SMP.masked(key, toKeySize: 7) == [1, 2, 3, 4, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0])
        #expect(SMP.masked(key, toKeySize: 16) == key)
    }
}
