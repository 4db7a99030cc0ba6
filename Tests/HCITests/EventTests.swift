import Testing
import Bluetooth
import Wire
@testable import HCI

/// HCI events (Core v5.4 Vol 4 Part E §7.7; layouts in docs/protocols/hci.md §Events). Vectors are
/// built by hand from those tables; the Reset Command Complete `0E 04 01 03 0C 00` is what
/// every controller answers to `03 0C 00`.
struct EventTests {
    @Test func commandCompleteForReset() throws {
        let event = try HCI.Event(bytes: [UInt8](hex: "0E 04 01 03 0C 00"))
        guard case .commandComplete(let c) = event else { Issue.record("got \(event)"); return }
        #expect(c.numCommandPackets == 1)
        #expect(c.opcode == HCI.Reset.opcode)
        #expect(c.returnParameters == [0x00])
        #expect(c.status == .success)
    }

    @Test func commandCompleteCarriesReturnParameters() throws {
        let event = try HCI.Event(bytes: [UInt8](hex: "0E 07 05 02 20 0C 1B 00 03"))
        let expected = HCI.CommandComplete(numCommandPackets: 5, opcode: HCI.LEReadBufferSize.opcode, returnParameters: [0x0C, 0x1B, 0x00, 0x03])
        #expect(event == .commandComplete(expected))
        #expect(expected.status == .commandDisallowed)
    }

    /// A NOP Command Complete (opcode 0) only returns credits and has no status byte.
    @Test func commandCompleteWithoutReturnParameters() throws {
        let event = try HCI.Event(bytes: [UInt8](hex: "0E 03 01 00 00"))
        #expect(event == .commandComplete(.init(numCommandPackets: 1, opcode: HCI.Opcode(rawValue: 0), returnParameters: [])))
    }

    @Test func commandStatus() throws {
        #expect(try HCI.Event(bytes: [UInt8](hex: "0F 04 00 01 0D 20"))
            == .commandStatus(.init(status: .success, numCommandPackets: 1, opcode: HCI.LECreateConnection.opcode)))
        #expect(try HCI.Event(bytes: [UInt8](hex: "0F 04 0C 02 19 20"))
            == .commandStatus(.init(status: .commandDisallowed, numCommandPackets: 2, opcode: HCI.LEEnableEncryption.opcode)))
    }

    @Test func disconnectionComplete() throws {
        let event = try HCI.Event(bytes: [UInt8](hex: "05 04 00 40 00 13"))
        guard case .disconnectionComplete(let d) = event else { Issue.record("got \(event)"); return }
        #expect(d.status == .success)
        #expect(d.handle == 0x0040)
        #expect(d.reason == .remoteUserTerminated)
        // Reserved bits above the 12-bit handle are ignored.
        #expect(try HCI.Event(bytes: [UInt8](hex: "05 04 00 40 F0 08"))
            == .disconnectionComplete(.init(status: .success, handle: 0x0040, reason: .connectionTimeout)))
    }

    @Test(arguments: [
        ("08 04 00 40 00 01", HCI.EncryptionChange(status: .success, handle: 0x0040, enabled: true)),
        ("08 04 00 41 00 00", .init(status: .success, handle: 0x0041, enabled: false)),
        ("08 04 06 40 00 00", .init(status: .pinOrKeyMissing, handle: 0x0040, enabled: false)),
        ("08 04 3D 40 00 00", .init(status: .terminatedMICFailure, handle: 0x0040, enabled: false)),
    ])
    func encryptionChange(_ hex: String, _ expected: HCI.EncryptionChange) throws {
        #expect(try HCI.Event(bytes: [UInt8](hex: hex)) == .encryptionChange(expected))
    }

    @Test func encryptionKeyRefreshComplete() throws {
        #expect(try HCI.Event(bytes: [UInt8](hex: "30 03 00 40 00")) == .encryptionKeyRefreshComplete(status: .success, handle: 0x0040))
    }

    /// Status · handle · Version · Company_Identifier · Subversion (§7.7.12): the version is skipped.
    @Test func readRemoteVersionComplete() throws {
        #expect(try HCI.Event(bytes: [UInt8](hex: "0C 08 00 40 00 0C 0F 00 34 12")) == .readRemoteVersionComplete(status: .success, handle: 0x0040))
    }

    @Test func hardwareError() throws {
        #expect(try HCI.Event(bytes: [UInt8](hex: "10 01 05")) == .hardwareError(code: 0x05))
    }

    @Test func numberOfCompletedPacketsForOneHandle() throws {
        #expect(try HCI.Event(bytes: [UInt8](hex: "13 05 01 40 00 01 00")) == .numberOfCompletedPackets([.init(handle: 0x0040, count: 1)]))
    }

    /// Handle and count interleaved per handle (BlueZ monitor/packet.c, docs/protocols/hci.md
    /// §Events).
    @Test func numberOfCompletedPacketsForSeveralHandles() throws {
        let event = try HCI.Event(bytes: [UInt8](hex: "13 0D 03 40 00 01 00 41 00 03 00 42 20 00 01"))
        #expect(event == .numberOfCompletedPackets([
            .init(handle: 0x0040, count: 1), .init(handle: 0x0041, count: 3), .init(handle: 0x0042, count: 0x0100),
        ]))
        #expect(try HCI.Event(bytes: [0x13, 0x01, 0x00]) == .numberOfCompletedPackets([]))
    }

    @Test func unknownEventsAreKept() throws {
        // 0x1A Data Buffer Overflow and 0xFF vendor-specific: not interpreted, not dropped.
        #expect(try HCI.Event(bytes: [UInt8](hex: "1A 01 01")) == .unknown(code: 0x1A, parameters: [0x01]))
        #expect(try HCI.Event(bytes: [UInt8](hex: "FF 03 AA BB CC")) == .unknown(code: 0xFF, parameters: [0xAA, 0xBB, 0xCC]))
        #expect(try HCI.Event(bytes: [UInt8](hex: "FF 00")) == .unknown(code: 0xFF, parameters: []))
    }

    @Test(arguments: [
        ("", WireError.truncated(field: "event code", needed: 1, available: 0)),
        ("05", .truncated(field: "parameter length", needed: 1, available: 0)),
        ("05 04 00 40 00", .malformed("event 0x5 says 4 parameter byte(s) but 3 follow")),
        ("05 03 00 40 00 13", .malformed("event 0x5 says 3 parameter byte(s) but 4 follow")),
        ("FF 05 01", .malformed("event 0xff says 5 parameter byte(s) but 1 follow")),
        ("05 03 00 40 00", .truncated(field: "reason", needed: 1, available: 0)),
        ("05 05 00 40 00 13 00", .trailingBytes(what: "event parameters", count: 1)),
        ("08 03 00 40 00", .truncated(field: "encryption enabled", needed: 1, available: 0)),
        ("08 05 00 40 00 01 00", .trailingBytes(what: "event parameters", count: 1)),
        ("0E 00", .truncated(field: "Num_HCI_Command_Packets", needed: 1, available: 0)),
        ("0E 02 01 03", .truncated(field: "Command_Opcode", needed: 2, available: 1)),
        ("0F 03 00 01 0D", .truncated(field: "Command_Opcode", needed: 2, available: 1)),
        ("0F 05 00 01 0D 20 00", .trailingBytes(what: "event parameters", count: 1)),
        ("10 00", .truncated(field: "Hardware_Code", needed: 1, available: 0)),
        ("0C 07 00 40 00 0C 0F 00 34", .truncated(field: "version information", needed: 5, available: 4)),
        ("30 02 00 40", .truncated(field: "handle", needed: 2, available: 1)),
        ("13 00", .truncated(field: "Num_Handles", needed: 1, available: 0)),
        // Number Of Completed Packets whose count lies about the entries that follow.
        ("13 05 02 40 00 01 00", .malformed("Number Of Completed Packets: 2 handle(s) need 8 bytes, 4 present")),
        ("13 09 01 40 00 01 00 41 00 01 00", .malformed("Number Of Completed Packets: 1 handle(s) need 4 bytes, 8 present")),
        ("13 03 FF 40 00", .malformed("Number Of Completed Packets: 255 handle(s) need 1020 bytes, 2 present")),
        ("13 04 01 40 00 01", .malformed("Number Of Completed Packets: 1 handle(s) need 4 bytes, 3 present")),
        ("3E 00", .truncated(field: "LE subevent code", needed: 1, available: 0)),
    ])
    func rejections(_ hex: String, _ error: WireError) {
        #expect(throws: error) { try HCI.Event(bytes: [UInt8](hex: hex)) }
    }

    /// Every prefix of every valid event, and every wrong length byte, throws or decodes: none traps.
    @Test(arguments: [
        "0E 04 01 03 0C 00", "0F 04 00 01 0D 20", "05 04 00 40 00 13", "08 04 00 40 00 01",
        "13 09 02 40 00 01 00 41 00 03 00", "30 03 00 40 00", "0C 08 00 40 00 0C 0F 00 34 12",
        "3E 13 01 00 40 00 00 01 55 44 33 22 11 C0 27 00 01 00 F4 01 05",
        "3E 0D 05 40 00 08 07 06 05 04 03 02 01 EF BE",
    ])
    func garbledCopiesNeverTrap(_ hex: String) {
        let valid = [UInt8](hex: hex)
        #expect(throws: Never.self) { try HCI.Event(bytes: valid) }
        for n in 0..<valid.count {
            #expect(throws: WireError.self, "prefix of \(n) byte(s)") { try HCI.Event(bytes: Array(valid.prefix(n))) }
        }
        for length in 0...255 where length != valid.count - 2 {
            var bad = valid
            bad[1] = UInt8(length)
            #expect(throws: WireError.self) { try HCI.Event(bytes: bad) }
        }
    }

    /// Seeded byte mutations of valid events, length byte kept consistent so the damage reaches
    /// the field decoders: every one decodes or throws a WireError, and a crash fails the run.
    @Test func randomMutationsDecodeOrThrow() {
        let corpus = [
            "0E 04 01 03 0C 00", "0F 04 00 01 0D 20", "05 04 00 40 00 13", "08 04 00 40 00 01",
            "13 09 02 40 00 01 00 41 00 03 00", "10 01 05", "30 03 00 40 00",
            "3E 13 01 00 40 00 00 01 55 44 33 22 11 C0 27 00 01 00 F4 01 05",
            "3E 1F 0A 00 41 00 01 02 55 44 33 22 11 C0 11 11 11 11 11 51 22 22 22 22 22 62 18 00 00 00 C8 00 00",
            "3E 0C 02 01 03 00 55 44 33 22 11 C0 00 7F",
            "3E 1A 0D 01 13 00 01 55 44 33 22 11 C0 01 00 FF 7F C5 00 00 00 00 00 00 00 00 00 00",
            "3E 0A 03 00 40 00 28 00 02 00 F4 01", "3E 0D 05 40 00 08 07 06 05 04 03 02 01 EF BE",
        ].map { [UInt8](hex: $0) }
        for valid in corpus {
            #expect(throws: Never.self, "corpus entry \(valid.hexString)") { try HCI.Event(bytes: valid) }
        }
        var rng = SplitMix64(seed: 0x5EED)
        var decoded = 0
        var rejected = 0
        for _ in 0..<5_000 {
            var bytes = corpus[Int.random(in: 0..<corpus.count, using: &rng)]
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                bytes[Int.random(in: 2..<bytes.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            if Bool.random(using: &rng) {
                // Grow or shrink by one byte and fix the length, so counts and lengths disagree.
                if Bool.random(using: &rng) { bytes.append(0x00) } else if bytes.count > 3 { bytes.removeLast() }
                bytes[1] = UInt8(bytes.count - 2)
            }
            do {
                _ = try HCI.Event(bytes: bytes)
                decoded += 1
            } catch {
                rejected += 1
            }
        }
        #expect(decoded > 100, "mutations that keep a valid layout still decode")
        #expect(rejected > 100, "mutations that break the layout are rejected")
    }
}
