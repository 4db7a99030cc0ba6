import Testing
@testable import HCI

/// HCI error codes (Core v5.4 Vol 1 Part F §1.3; BlueZ monitor/packet.c error table).
struct StatusTests {
    @Test(arguments: [
        (HCI.Status.success, UInt8(0x00)), (.unknownCommand, 0x01), (.unknownConnectionIdentifier, 0x02),
        (.hardwareFailure, 0x03), (.authenticationFailure, 0x05), (.pinOrKeyMissing, 0x06),
        (.memoryCapacityExceeded, 0x07), (.connectionTimeout, 0x08), (.connectionLimitExceeded, 0x09),
        (.commandDisallowed, 0x0C), (.invalidParameters, 0x12), (.remoteUserTerminated, 0x13),
        (.remoteLowResources, 0x14), (.remotePowerOff, 0x15), (.localHostTerminated, 0x16),
        (.unsupportedRemoteFeature, 0x1A), (.unspecifiedError, 0x1F), (.llResponseTimeout, 0x22),
        (.instantPassed, 0x28), (.insufficientSecurity, 0x2F), (.controllerBusy, 0x3A),
        (.unacceptableConnectionParameters, 0x3B), (.advertisingTimeout, 0x3C), (.terminatedMICFailure, 0x3D),
        (.connectionFailedToBeEstablished, 0x3E), (.unknownAdvertisingIdentifier, 0x42),
    ])
    func codesMatchTheSpec(_ status: HCI.Status, _ code: UInt8) {
        #expect(status.rawValue == code)
        #expect(status == HCI.Status(rawValue: code))
        #expect(status.isSuccess == (code == 0))
        #expect(!status.description.hasPrefix("error ("), "every named constant has a description")
    }

    @Test func descriptionsCarryTheHexCode() {
        #expect(HCI.Status.success.description == "success (0x00)")
        #expect(HCI.Status.remoteUserTerminated.description == "remote user terminated connection (0x13)")
        #expect(HCI.Status.terminatedMICFailure.description == "connection terminated due to MIC failure (0x3d)")
        #expect(HCI.Status(0x23).description == "LL procedure collision (0x23)")
        #expect(HCI.Status(0x99).description == "error (0x99)")
        #expect(HCI.Status(0x04).description == "error (0x04)")
    }
}
