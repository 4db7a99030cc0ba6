import Bluetooth
import Testing
import Wire
@testable import Transmitters

@Suite struct CGMServiceProfileTests {
    // CGMS: service 0x181F; 0x2AA7 measurement, 0x2AA8 feature, 0x2AA9 status, 0x2AAA start
    // time, 0x2AAB run time, 0x2AAC SOCP, 0x2A52 RACP (docs/protocols/sig-cgm.md).
    @Test func declaresTheCGMService() {
        let profile = CGMServiceProfile.profile
        #expect(profile.advertisedService == 0x181F)
        #expect(profile.service == 0x181F)
        #expect(profile.receiveCharacteristic == 0x2AA7)
        #expect(profile.writeCharacteristic == 0x2AAC)
        #expect(profile.security == .encryptionRequired)
        #expect(CGMServiceDriver.profile == profile)
        #expect(profile.otherCharacteristics.map(\.characteristic.uuid16) == [0x2AA8, 0x2AA9, 0x2AAA, 0x2AAB, 0x2A52])
        #expect(profile.otherCharacteristics.map(\.isOptional) == [false, false, false, true, true])
    }

    // CRC-16/MCRF4XX check value: "123456789" → 0x6F91 (the CRC catalogue's check for this model).
    @Test func e2eCRCAppendsAndChecks() throws {
        let payload = Array("123456789".utf8)
        let framed = CGME2ECRC.appending(to: payload)
        #expect(Array(framed.suffix(2)) == [0x91, 0x6F])
        try CGME2ECRC.check(framed, what: "test")
        #expect(try CGME2ECRC.payload(of: framed, length: 9, required: true, what: "test") == payload)
        #expect(try CGME2ECRC.payload(of: payload, length: 9, required: false, what: "test") == payload)
        #expect(throws: WireError.self) { try CGME2ECRC.payload(of: payload, length: 9, required: true, what: "test") }
        #expect(throws: WireError.self) { try CGME2ECRC.payload(of: payload + [0], length: 9, required: false, what: "test") }
        #expect(throws: WireError.self) { try CGME2ECRC.check([0x91], what: "test") }
        var corrupted = framed
        corrupted[0] ^= 1
        #expect(throws: WireError.self) { try CGME2ECRC.check(corrupted, what: "test") }
    }
}
