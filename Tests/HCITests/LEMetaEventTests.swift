import Testing
import Bluetooth
import Wire
@testable import HCI

/// Wraps LE Meta parameters (subevent first) in an event header with the right length byte.
func leMetaEvent(_ hex: String) -> [UInt8] {
    let parameters = [UInt8](hex: hex)
    return [HCI.Event.Code.leMeta, UInt8(parameters.count)] + parameters
}

/// LE Meta subevents other than advertising reports (Core v5.4 Vol 4 Part E §7.7.65;
/// layouts in docs/protocols/hci.md §Events). Vectors hand-built from those tables.
struct LEMetaEventTests {
    static let peer = Address(value: 0xC011_2233_4455)

    /// LE Connection Complete (§7.7.65.1): 18 parameter bytes after the subevent.
    static let connectionComplete = """
        3E 13 01
        00  40 00  00  01  55 44 33 22 11 C0  27 00  01 00  F4 01  05
        """

    @Test func connectionComplete() throws {
        let bytes = [UInt8](hex: Self.connectionComplete)
        #expect(bytes.count == 2 + 19)
        let event = try HCI.Event(bytes: bytes)
        guard case .le(.connectionComplete(let c)) = event else { Issue.record("got \(event)"); return }
        #expect(c.status == .success)
        #expect(c.handle == 0x0040)
        #expect(c.role == .central)
        #expect(c.peer == DeviceAddress(Self.peer, type: .random))
        #expect(c.interval == 0x0027)
        #expect(c.latency == 1)
        #expect(c.supervisionTimeout == 500)
    }

    @Test func failedConnection() throws {
        let event = try HCI.Event(bytes: leMetaEvent("01 3E 00 00 00 00 55 44 33 22 11 C0 00 00 00 00 00 00 00"))
        guard case .le(.connectionComplete(let c)) = event else { Issue.record("got \(event)"); return }
        #expect(c.status == .connectionFailedToBeEstablished)
        #expect(c.peer == DeviceAddress(Self.peer, type: .public))
    }

    /// LE Enhanced Connection Complete (§7.7.65.10): the two RPAs after the peer address, 30 bytes.
    @Test func enhancedConnectionComplete() throws {
        let bytes = [UInt8](hex: """
            3E 1F 0A
            00  41 00  01  02  55 44 33 22 11 C0
            11 11 11 11 11 51  22 22 22 22 22 62
            18 00  00 00  C8 00  00
            """)
        #expect(bytes.count == 2 + 31)
        let event = try HCI.Event(bytes: bytes)
        #expect(event == .le(.connectionComplete(.init(
            status: .success, handle: 0x0041, role: .peripheral, peer: DeviceAddress(Self.peer, type: .publicIdentity),
            interval: 0x18, latency: 0, supervisionTimeout: 200))))
    }

    @Test(arguments: [UInt8(0x04), 0x05, 0xFF])
    func connectionCompleteRejectsAnUnknownPeerAddressType(_ type: UInt8) {
        var bytes = [UInt8](hex: Self.connectionComplete)
        bytes[7] = type  // code · length · subevent · status · handle[2] · role · Peer_Address_Type
        #expect(throws: WireError.invalidValue(field: "Peer_Address_Type", value: Int(type))) { try HCI.Event(bytes: bytes) }
    }

    /// The simulator's encoder writes exactly the legacy layout (clock accuracy 0).
    @Test func connectionCompleteEncodesTheLegacySubevent() throws {
        let c = HCI.LEConnectionComplete(status: .success, handle: 0x0040, role: .central, peer: DeviceAddress(Self.peer, type: .random), interval: 0x27, latency: 1, supervisionTimeout: 500)
        var expected = [UInt8](hex: Self.connectionComplete)
        expected[expected.count - 1] = 0x00
        #expect(c.eventBytes == expected)
        #expect(try HCI.Event(bytes: c.eventBytes) == .le(.connectionComplete(c)))
    }

    @Test func connectionUpdateComplete() throws {
        #expect(try HCI.Event(bytes: leMetaEvent("03 00 40 00 28 00 02 00 F4 01"))
            == .le(.connectionUpdateComplete(.init(status: .success, handle: 0x0040, interval: 0x28, latency: 2, supervisionTimeout: 500))))
        #expect(try HCI.Event(bytes: leMetaEvent("03 3B 40 00 00 00 00 00 00 00"))
            == .le(.connectionUpdateComplete(.init(status: .unacceptableConnectionParameters, handle: 0x0040, interval: 0, latency: 0, supervisionTimeout: 0))))
    }

    @Test func readRemoteFeaturesComplete() throws {
        #expect(try HCI.Event(bytes: leMetaEvent("04 00 40 00 01 00 00 00 00 00 00 80"))
            == .le(.readRemoteFeaturesComplete(status: .success, handle: 0x0040, features: 0x8000_0000_0000_0001)))
    }

    /// LE Long Term Key Request (§7.7.65.5): handle · Rand[8] · EDIV.
    @Test func longTermKeyRequest() throws {
        #expect(try HCI.Event(bytes: leMetaEvent("05 40 00 08 07 06 05 04 03 02 01 EF BE"))
            == .le(.longTermKeyRequest(handle: 0x0040, random: 0x0102_0304_0506_0708, ediv: 0xBEEF)))
        // LE Secure Connections keys: Rand and EDIV are zero.
        #expect(try HCI.Event(bytes: leMetaEvent("05 01 00 00 00 00 00 00 00 00 00 00 00"))
            == .le(.longTermKeyRequest(handle: 0x0001, random: 0, ediv: 0)))
    }

    @Test func remoteConnectionParameterRequest() throws {
        #expect(try HCI.Event(bytes: leMetaEvent("06 40 00 06 00 0C 00 04 00 C8 00"))
            == .le(.remoteConnectionParameterRequest(handle: 0x0040, parameters: .init(intervalMin: 6, intervalMax: 12, latency: 4, supervisionTimeout: 200))))
    }

    /// Handle · Max_TX_Octets · Max_TX_Time · Max_RX_Octets · Max_RX_Time (§7.7.65.7).
    @Test func dataLengthChange() throws {
        #expect(try HCI.Event(bytes: leMetaEvent("07 40 00 FB 00 48 08 1B 00 48 01"))
            == .le(.dataLengthChange(handle: 0x0040, maxTxOctets: 251, maxRxOctets: 27)))
    }

    @Test func phyUpdateComplete() throws {
        #expect(try HCI.Event(bytes: leMetaEvent("0C 00 40 00 02 02")) == .le(.phyUpdateComplete(status: .success, handle: 0x0040)))
    }

    @Test func unknownSubeventsAreKept() throws {
        // 0x14 Channel Selection Algorithm: not interpreted, kept whole for the log.
        #expect(try HCI.Event(bytes: leMetaEvent("14 40 00 01")) == .le(.unknown(subevent: 0x14, parameters: [0x40, 0x00, 0x01])))
        #expect(try HCI.Event(bytes: leMetaEvent("FF")) == .le(.unknown(subevent: 0xFF, parameters: [])))
    }

    @Test(arguments: [
        ("01 00 40 00 00 01 55 44 33 22 11 C0 27 00 01 00 F4 01", WireError.truncated(field: "Central_Clock_Accuracy", needed: 1, available: 0)),
        ("01 00 40 00 00 01 55 44 33", .truncated(field: "Peer_Address", needed: 6, available: 3)),
        ("01 00 40 00 00 01 55 44 33 22 11 C0 27 00 01 00 F4 01 05 00", .trailingBytes(what: "event parameters", count: 1)),
        ("0A 00 41 00 01 02 55 44 33 22 11 C0 11 11 11 11 11 51 22 22", .truncated(field: "Local/Peer_Resolvable_Private_Address", needed: 12, available: 8)),
        ("03 00 40 00 28 00 02 00 F4", .truncated(field: "Supervision_Timeout", needed: 2, available: 1)),
        ("03 00 40 00 28 00 02 00 F4 01 00", .trailingBytes(what: "event parameters", count: 1)),
        ("05 40 00 08 07 06 05 04 03 02 01", .truncated(field: "Encrypted_Diversifier", needed: 2, available: 0)),
        ("06 40 00 06 00 0C 00 04 00 C8", .truncated(field: "Timeout", needed: 2, available: 1)),
        ("07 40 00 FB 00 48 08 1B 00 48", .truncated(field: "Max_RX_Time", needed: 2, available: 1)),
        ("0C 00 40 00 02", .truncated(field: "PHYs", needed: 2, available: 1)),
        ("0C 00 40 00 02 02 00", .trailingBytes(what: "event parameters", count: 1)),
    ])
    func rejections(_ hex: String, _ error: WireError) {
        #expect(throws: error) { try HCI.Event(bytes: leMetaEvent(hex)) }
    }
}
