import Bluetooth
import HCI
import Wire

// Event encoders the simulated controller needs. They live here, not in Sources/HCI, because
// only a controller sends events; Vigil's host only decodes them (HCI.Event(bytes:)).

extension HCI {
    /// Builds an event packet (code · parameter length · parameters, Core v5.4 Vol 4 Part E §5.4.4)
    /// without the H4 indicator.
    static func eventPacket(code: UInt8, _ build: (inout ByteWriter) -> Void) -> [UInt8] {
        var parameters = ByteWriter()
        build(&parameters)
        return [code, UInt8(truncatingIfNeeded: parameters.bytes.count)] + parameters.bytes
    }

    /// Builds an LE Meta event (§7.7.65) around one subevent's parameters.
    static func leMetaPacket(subevent: UInt8, _ build: (inout ByteWriter) -> Void) -> [UInt8] {
        eventPacket(code: Event.Code.leMeta) { w in
            w.write(subevent)
            build(&w)
        }
    }
}

extension HCI.CommandComplete {
    /// HCI_Command_Complete (§7.7.14): Num_HCI_Command_Packets · Command_Opcode · return parameters.
    var eventBytes: [UInt8] {
        HCI.eventPacket(code: HCI.Event.Code.commandComplete) { w in
            w.write(numCommandPackets); w.write(opcode.rawValue); w.write(contentsOf: returnParameters)
        }
    }
}

extension HCI.CommandStatus {
    /// HCI_Command_Status (§7.7.15): Status · Num_HCI_Command_Packets · Command_Opcode.
    var eventBytes: [UInt8] {
        HCI.eventPacket(code: HCI.Event.Code.commandStatus) { w in
            w.write(status.rawValue); w.write(numCommandPackets); w.write(opcode.rawValue)
        }
    }
}

extension HCI.DisconnectionComplete {
    /// HCI_Disconnection_Complete (§7.7.5): Status · Connection_Handle · Reason.
    var eventBytes: [UInt8] {
        HCI.eventPacket(code: HCI.Event.Code.disconnectionComplete) { w in
            w.write(status.rawValue); w.write(handle); w.write(reason.rawValue)
        }
    }
}

extension HCI.EncryptionChange {
    /// HCI_Encryption_Change [v1] (§7.7.8): Status · Connection_Handle · Encryption_Enabled
    /// (0x01 = AES-CCM on an LE link).
    var eventBytes: [UInt8] {
        HCI.eventPacket(code: HCI.Event.Code.encryptionChange) { w in
            w.write(status.rawValue); w.write(handle); w.write(UInt8(enabled ? 1 : 0))
        }
    }
}

extension HCI.LEConnectionUpdateComplete {
    /// HCI_LE_Connection_Update_Complete (§7.7.65.3).
    var eventBytes: [UInt8] {
        HCI.leMetaPacket(subevent: HCI.LEMetaEvent.Subevent.connectionUpdateComplete) { w in
            w.write(status.rawValue); w.write(handle); w.write(interval); w.write(latency); w.write(supervisionTimeout)
        }
    }
}

extension HCI {
    /// HCI_Number_Of_Completed_Packets (§7.7.19): Num_Handles, then handle/count pairs.
    static func numberOfCompletedPacketsBytes(_ entries: [CompletedPackets]) -> [UInt8] {
        eventPacket(code: Event.Code.numberOfCompletedPackets) { w in
            w.write(UInt8(truncatingIfNeeded: entries.count))
            for entry in entries {
                w.write(entry.handle); w.write(entry.count)
            }
        }
    }

    /// HCI_Hardware_Error (§7.7.16).
    static func hardwareErrorBytes(code: UInt8) -> [UInt8] {
        eventPacket(code: Event.Code.hardwareError) { w in w.write(code) }
    }
}
