import Bluetooth
import Testing
@testable import SMP

/// `SMP.Configuration` as it appears on the wire (Core v5.4 Vol 3 Part H §3.5.1).
struct SMPTests {
    @Test func defaultsAskForBondingAndSecureConnectionsNeverMITM() {
        let config = SMP.Configuration()
        #expect(config.authenticationRequirements == [.bonding, .secureConnections])
        #expect(config.authenticationRequirements.rawValue == 0x09)
        #expect(config.timeout == .seconds(30))
        #expect(SMP.channel == 0x0006)
        #expect(config.offeredKeys(asInitiator: true) == [])
        #expect(config.offeredKeys(asInitiator: false) == [.encryptionKey])
    }

    @Test func keySizesAreClampedToTheSpecRange() {
        let config = SMP.Configuration(maximumKeySize: 40, minimumKeySize: 2)
        #expect(config.maximumKeySize == 16)
        #expect(config.minimumKeySize == 7)
        let inverted = SMP.Configuration(maximumKeySize: 8, minimumKeySize: 12)
        #expect(inverted.minimumKeySize == 8)
    }

    @Test func linkKeyIsNeverRequestedAndKeysAreOfferedOnlyWhenWeHaveThem() {
        let identity = SMP.LocalIdentity(irk: [UInt8](repeating: 1, count: 16), address: centralAddress)
        let config = SMP.Configuration(
            bonding: false, requestedKeys: [.identityKey, .linkKey], identity: identity,
            signatureKey: [UInt8](repeating: 2, count: 16))
        #expect(config.requestedKeys == [.identityKey])
        #expect(config.authenticationRequirements == [.secureConnections])
        #expect(config.offeredKeys(asInitiator: true) == [.identityKey, .signingKey])
    }

    @Test func systemRandomGivesTheRequestedCountAndVaries() {
        var random = SMP.SystemRandom()
        let a = random.bytes(32), b = random.bytes(32)
        #expect(a.count == 32 && b.count == 32)
        #expect(a != b)  // equal with probability 2^-256
        #expect(random.bytes(0).isEmpty)
    }

    @Test func aBondIsFiledUnderItsIdentityWhenKnown() {
        var bond = SMP.Bond(peer: peripheralAddress, longTermKey: [UInt8](repeating: 3, count: 16), secureConnections: true)
        #expect(bond.identity == peripheralAddress)
        bond.identityAddress = centralAddress
        #expect(bond.identity == centralAddress)
        #expect(SMP.PairingFailure.local(.confirmValueFailed).reason == .confirmValueFailed)
        #expect(SMP.PairingFailure.timeout.reason == nil)
    }
}
