import Testing
import Bluetooth
import Wire
@testable import HCI

/// LE controller commands (Core v5.4 Vol 4 Part E §7.8). Vectors are built by hand from the
/// parameter tables in docs/protocols/hci.md §Commands (BlueZ hci.h structs and sizes).
struct LECommandsTests {
    static let peer = Address(value: 0xC011_2233_4455)
    static let ltk: [UInt8] = Array(0x00...0x0F)

    /// Bits 0–6, 11 and 12 (BlueZ `events_le_table`): 0x187F.
    @Test func setEventMask() {
        #expect(HCI.LESetEventMask.vigilDefault == 0x187F)
        expectCommand(HCI.LESetEventMask(), "01 20 08 7F 18 00 00 00 00 00 00")
    }

    @Test func parameterlessCommands() {
        expectCommand(HCI.LEReadBufferSize(), "02 20 00")
        expectCommand(HCI.LEReadLocalSupportedFeatures(), "03 20 00")
        expectCommand(HCI.LECreateConnectionCancel(), "0E 20 00")
        expectCommand(HCI.LERand(), "18 20 00")
    }

    @Test func setRandomAddress() {
        expectCommand(HCI.LESetRandomAddress(address: Self.peer), "05 20 06 55 44 33 22 11 C0")
    }

    @Test func setAdvertisingEnable() {
        expectCommand(HCI.LESetAdvertisingEnable(enable: true), "0A 20 01 01")
        expectCommand(HCI.LESetAdvertisingEnable(enable: false), "0A 20 01 00")
    }

    /// Type · interval · window (0.625 ms units) · own address type · filter policy: 7 bytes.
    @Test func setScanParameters() {
        expectCommand(HCI.LESetScanParameters(active: true), "0B 20 07 01 60 00 30 00 01 00")
        expectCommand(
            HCI.LESetScanParameters(active: false, interval: 0x4000, window: 0x0004, ownAddressType: .public, filterPolicy: 1),
            "0B 20 07 00 00 40 04 00 00 01")
    }

    /// Own address types 2 and 3 (resolvable private) fold to their fallback public/random.
    @Test func setScanParametersDecodeFoldsOwnAddressType() throws {
        let rpaPublic = try HCI.LESetScanParameters.decode(commandBytes: [UInt8](hex: "0B 20 07 01 60 00 30 00 02 00"))
        #expect(rpaPublic.ownAddressType == .public)
        let rpaRandom = try HCI.LESetScanParameters.decode(commandBytes: [UInt8](hex: "0B 20 07 01 60 00 30 00 03 00"))
        #expect(rpaRandom.ownAddressType == .random)
        #expect(rpaRandom.active)
        #expect(rpaRandom.interval == 0x0060)
        #expect(rpaRandom.window == 0x0030)
    }

    @Test func setScanEnable() {
        expectCommand(HCI.LESetScanEnable(enable: true), "0C 20 02 01 00")
        expectCommand(HCI.LESetScanEnable(enable: false, filterDuplicates: true), "0C 20 02 00 01")
    }

    /// The 25 parameter bytes of §7.8.12, field by field.
    @Test func createConnection() {
        let command = HCI.LECreateConnection(peer: DeviceAddress(Self.peer, type: .random))
        expectCommand(command, """
            0D 20 19
            60 00  60 00  00  01  55 44 33 22 11 C0  01
            18 00  28 00  00 00  90 01  00 00  00 00
            """)
        #expect(command.commandBytes.count == 3 + 25)
    }

    @Test func createConnectionWithEveryField() {
        var command = HCI.LECreateConnection(
            peer: DeviceAddress(Self.peer, type: .public), ownAddressType: .public,
            parameters: .init(intervalMin: 6, intervalMax: 0x0C80, latency: 3, supervisionTimeout: 0x0C80, minCELength: 1, maxCELength: 2),
            scanInterval: 0x0010, scanWindow: 0x0008)
        command.useFilterAcceptList = true
        expectCommand(command, """
            0D 20 19
            10 00  08 00  01  00  55 44 33 22 11 C0  00
            06 00  80 0C  03 00  80 0C  01 00  02 00
            """)
    }

    /// Peer_Address_Type takes only 0/1: a resolved identity folds back to public/random.
    @Test(arguments: [
        (AddressType.public, UInt8(0), AddressType.public), (.random, 1, .random),
        (.publicIdentity, 0, .public), (.randomIdentity, 1, .random),
    ])
    func createConnectionPeerAddressType(_ type: AddressType, _ wire: UInt8, _ decoded: AddressType) throws {
        let bytes = HCI.LECreateConnection(peer: DeviceAddress(Self.peer, type: type)).commandBytes
        #expect(bytes[3 + 5] == wire)
        #expect(try HCI.LECreateConnection.decode(commandBytes: bytes).peer == DeviceAddress(Self.peer, type: decoded))
    }

    @Test func createConnectionRejectsShortParameters() {
        var bytes = HCI.LECreateConnection(peer: DeviceAddress(Self.peer, type: .random)).commandBytes
        bytes.removeLast()
        bytes[2] = 24
        #expect(throws: WireError.truncated(field: "Max_CE_Length", needed: 2, available: 1)) {
            try HCI.LECreateConnection.decode(commandBytes: bytes)
        }
    }

    /// Handle · six parameters: 14 bytes (§7.8.18).
    @Test func connectionUpdate() {
        expectCommand(
            HCI.LEConnectionUpdate(handle: 0x0040, parameters: .init(intervalMin: 6, intervalMax: 12, latency: 4, supervisionTimeout: 200, minCELength: 1, maxCELength: 2)),
            "13 20 0E 40 00 06 00 0C 00 04 00 C8 00 01 00 02 00")
    }

    /// Handle · Rand[8] · EDIV · LTK[16]: 28 bytes (§7.8.24), every multi-byte field LSB first.
    @Test func enableEncryption() {
        let command = HCI.LEEnableEncryption(handle: 0x0040, random: 0x0102_0304_0506_0708, ediv: 0xBEEF, longTermKey: Self.ltk)
        expectCommand(command, """
            19 20 1C
            40 00  08 07 06 05 04 03 02 01  EF BE
            00 01 02 03 04 05 06 07 08 09 0A 0B 0C 0D 0E 0F
            """)
        #expect(command.commandBytes.count == 3 + 28)
    }

    @Test func enableEncryptionRejectsAShortKey() {
        let bytes = [UInt8](hex: "19 20 1B 40 00 08 07 06 05 04 03 02 01 EF BE") + Array(Self.ltk.dropLast())
        #expect(throws: WireError.truncated(field: "Long_Term_Key", needed: 16, available: 15)) {
            try HCI.LEEnableEncryption.decode(commandBytes: bytes)
        }
    }

    @Test func longTermKeyReplies() {
        expectCommand(
            HCI.LELongTermKeyRequestReply(handle: 0x0001, longTermKey: Array(0xF0...0xFF)),
            "1A 20 12 01 00 F0 F1 F2 F3 F4 F5 F6 F7 F8 F9 FA FB FC FD FE FF")
        expectCommand(HCI.LELongTermKeyRequestNegativeReply(handle: 0x0001), "1B 20 02 01 00")
    }

    /// Return: status · LE_ACL_Data_Packet_Length u16 · Total_Num u8 (§7.8.2). Bumble reports 27 × 3.
    @Test func readBufferSizeReturn() throws {
        let bytes = [UInt8](hex: "00 1B 00 03")
        let r = try HCI.LEReadBufferSize.Return(returnParameters: bytes)
        #expect(r.leACLDataPacketLength == 27)
        #expect(r.totalNumLEACLDataPackets == 3)
        #expect(r.returnParameters == bytes)
        let shared = try HCI.LEReadBufferSize.Return(returnParameters: [0, 0, 0, 0])
        #expect(shared.leACLDataPacketLength == 0, "0 means: use HCI_Read_Buffer_Size")
        #expect(throws: WireError.truncated(field: "Total_Num_LE_ACL_Data_Packets", needed: 1, available: 0)) {
            try HCI.LEReadBufferSize.Return(returnParameters: [0x00, 0x1B, 0x00])
        }
    }

    /// Feature bits (Vol 6 Part B §4.6): bit 0 LE Encryption, bit 12 LE Extended Advertising.
    @Test(arguments: [
        ("00 01 10 00 00 00 00 00 00", UInt64(0x1001), true, true),
        ("00 01 00 00 00 00 00 00 00", 0x0001, true, false),
        ("00 00 10 00 00 00 00 00 00", 0x1000, false, true),
        ("00 FE EF FF FF FF FF FF FF", 0xFFFF_FFFF_FFFF_EFFE, false, false),
    ])
    func readLocalSupportedFeaturesReturn(_ hex: String, _ features: UInt64, _ encryption: Bool, _ extended: Bool) throws {
        let r = try HCI.LEReadLocalSupportedFeatures.Return(returnParameters: [UInt8](hex: hex))
        #expect(r.features == features)
        #expect(r.supportsEncryption == encryption)
        #expect(r.supportsExtendedAdvertising == extended)
    }

    @Test func connectionParameterDefaultsAndDuration() {
        let p = HCI.ConnectionParameters()
        #expect(p.intervalMin == 24)
        #expect(p.intervalMax == 40)
        #expect(p.latency == 0)
        #expect(p.supervisionTimeout == 400)
        #expect(p.supervisionDuration == .seconds(4))
        #expect(p.isValid)
    }

    /// Ranges of Vol 6 Part B §4.5.1: interval 6–3200 (7.5 ms–4 s), latency ≤ 499, timeout
    /// 10–3200 (100 ms–32 s) and timeout > (1 + latency) × interval × 2.
    @Test(arguments: [
        (UInt16(6), UInt16(6), UInt16(0), UInt16(10), true),       // 7.5 ms, 100 ms > 15 ms
        (6, 0x0C80, 0, 0x0C80, true),                              // 4 s interval, 32 s timeout > 8 s
        (5, 40, 0, 400, false),                                    // interval below 7.5 ms
        (6, 0x0C81, 0, 0x0C80, false),                             // interval above 4 s
        (40, 24, 0, 400, false),                                   // min above max
        (24, 40, 499, 0x0C80, false),                              // 32 s ≤ 500 × 50 ms × 2
        (24, 40, 500, 0x0C80, false),                              // latency above 499
        (24, 40, 0, 9, false),                                     // timeout below 100 ms
        (24, 40, 0, 0x0C81, false),                                // timeout above 32 s
        (40, 40, 10, 110, false),                                  // 1.1 s == 11 × 50 ms × 2: not larger
        (40, 40, 10, 111, true),                                   // 1.11 s > 1.1 s
    ])
    func connectionParameterValidity(_ min: UInt16, _ max: UInt16, _ latency: UInt16, _ timeout: UInt16, _ valid: Bool) {
        let p = HCI.ConnectionParameters(intervalMin: min, intervalMax: max, latency: latency, supervisionTimeout: timeout)
        #expect(p.isValid == valid)
    }
}
