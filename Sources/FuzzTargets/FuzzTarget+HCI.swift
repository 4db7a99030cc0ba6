import Bluetooth
import HCI
import Host

// Targets for the HCI layer: what arrives from the controller before the host sees it.

extension FuzzTarget {
    /// H4 framing (Core v5.4 Vol 4 Part A §2) of a byte stream cut into pieces the way a UART
    /// read delivers them. Input: a count octet and that many split sizes, then the stream.
    ///
    /// Oracle: until the framer reports an error, the packets it returned plus what it still
    /// buffers are exactly the bytes fed in (no byte lost, duplicated or invented).
    static let h4 = FuzzTarget(name: "h4", summary: "HCI.H4Framer over random chunk splits, then HCI.Packet/Event/ACLData on each packet") { buffer in
        var input = FuzzInput(buffer)
        let splits = input.take(Int(input.byte() % 16)).map { Int($0 % 64) + 1 }
        // Mostly the production limit; sometimes a small one so the oversize path runs too.
        let limit = input.byte() & 1 == 0 ? 4 + 65535 : 64
        let stream = input.rest()
        var framer = HCI.H4Framer(maximumPacketLength: limit)
        var fed = 0, framed = 0, splitIndex = 0
        var inSync = true
        while fed < stream.count {
            let size = splits.isEmpty ? stream.count : splits[splitIndex % splits.count]
            splitIndex += 1
            let end = min(stream.count, fed + size)
            framer.append(stream[fed..<end])
            fed = end
            while true {
                let packet: [UInt8]?
                do {
                    packet = try framer.nextPacket()
                } catch {
                    // The owner resets the transport; everything buffered is gone.
                    framer.reset()
                    inSync = false
                    break
                }
                guard let packet else { break }
                if inSync {
                    fuzzCheck(Array(stream[framed..<(framed + packet.count)]) == packet, "framed packet differs from the stream")
                    framed += packet.count
                }
                decodeH4Packet(packet)
            }
            if inSync { fuzzCheck(framed + framer.pendingCount == fed, "framer lost or invented bytes") }
        }
    }

    /// One HCI event packet (Vol 4 Part E §5.4.4, §7.7) as the host decodes it, including the
    /// return parameters of the Command Complete events bring-up reads.
    static let hciEvent = FuzzTarget(name: "hci-event", summary: "HCI.Event(bytes:) and (bytes:range:), LE meta events and advertising reports, command return parameters") { buffer in
        let bytes = Array(buffer)
        decodeEvent(bytes)
        // The zero-copy path the btsnoop replay uses, with a range taken from the input itself
        // (possibly outside the buffer, which must be an error, not a trap).
        if bytes.count >= 2 {
            let lower = Int(bytes[0] % 8) - 1
            let upper = bytes.count - Int(bytes[1] % 4) + 1
            if lower <= upper { _ = try? HCI.Event(bytes: bytes, range: lower..<upper) }
        }
    }

    /// ACL data packets (Vol 4 Part E §5.4.2) reassembled into L2CAP B-frames (Vol 3 Part A
    /// §7.2.1), then LE signaling commands on CID 0x0005 (§4). Input: a maximum-frame octet,
    /// then ACL packets each prefixed by a length octet.
    static let aclL2CAP = FuzzTarget(name: "acl-l2cap", summary: "HCI.ACLData + L2CAP.Reassembler across fragments, then L2CAP.LESignaling") { buffer in
        var input = FuzzInput(buffer)
        let maximum = input.byte() & 1 == 0 ? 4 + 1024 : 4 + Int(input.byte())
        var reassembler = L2CAP.Reassembler(maximumFrameLength: maximum)
        while !input.isAtEnd {
            let packet = input.chunk()
            guard let acl = try? HCI.ACLData(bytes: packet) else { continue }
            let frame: L2CAP.BasicFrame?
            do {
                frame = try reassembler.receive(fragment: acl.data, isFirst: acl.boundary.isFirst)
            } catch {
                continue
            }
            guard let frame else { continue }
            fuzzCheck(frame.bytes.count <= maximum, "reassembled a frame longer than the maximum")
            if frame.channel == L2CAP.ChannelID.leSignaling, let command = try? L2CAP.LESignaling.Command(bytes: frame.payload) {
                fuzzCheck(command.bytes == frame.payload, "LE signaling command does not re-encode to its bytes")
                if command.code == L2CAP.LESignaling.Code.connectionParameterUpdateRequest {
                    _ = try? L2CAP.LESignaling.decodeParameterUpdateRequest(command.data)
                }
            }
        }
    }

    /// A btsnoop file (RFC 1761 framing as BlueZ and Android write it) read record by record,
    /// each packet then decoded as `vigil replay` does.
    static let btsnoop = FuzzTarget(name: "btsnoop", summary: "BTSnoop.Reader next() and nextRange(), each record decoded as an H4 packet") { buffer in
        let bytes = Array(buffer)
        guard var reader = try? BTSnoop.Reader(bytes) else { return }
        var ranged = reader
        var records = 0
        while let record = try? reader.next() {
            records += 1
            decodeH4Packet(record.packet)
        }
        // The zero-copy path must agree with the copying one, range by range.
        while let (_, range, _) = try? ranged.nextRange() {
            fuzzCheck(range.lowerBound >= 0 && range.upperBound <= bytes.count, "record range \(range) outside the file")
            if reader.datalink == BTSnoop.datalinkH4, bytes[range].first == HCI.PacketType.event.rawValue {
                _ = try? HCI.Event(bytes: bytes, range: (range.lowerBound + 1)..<range.upperBound)
            }
            records -= 1
        }
        fuzzCheck(records == 0, "next() and nextRange() read a different number of records")
    }

    /// Decodes one H4 packet with everything the host would apply to it.
    static func decodeH4Packet(_ packet: [UInt8]) {
        guard let split = try? HCI.Packet(h4: packet) else { return }
        fuzzCheck(split.h4Bytes == packet, "HCI.Packet does not re-encode to its bytes")
        switch split {
        case .event(let body): decodeEvent(body)
        case .aclData(let body): _ = try? HCI.ACLData(bytes: body)
        case .command, .other: break
        }
    }

    static func decodeEvent(_ bytes: [UInt8]) {
        guard let event = try? HCI.Event(bytes: bytes) else { return }
        if case .commandComplete(let complete) = event {
            let p = complete.returnParameters
            _ = try? HCI.ReadLocalVersionInformation.Return(returnParameters: p)
            _ = try? HCI.LEReadBufferSize.Return(returnParameters: p)
            _ = try? HCI.ReadBufferSize.Return(returnParameters: p)
            _ = try? HCI.LEReadLocalSupportedFeatures.Return(returnParameters: p)
            _ = try? HCI.ReadBDADDR.Return(returnParameters: p)
        }
        if case .le(.advertisingReports(let reports)) = event {
            for report in reports {
                // The scanner parses every report's data; the slice must stay inside the event.
                fuzzCheck(report.data.startIndex >= 0 && report.data.endIndex <= bytes.count, "report data outside the event")
                if let parsed = try? AdvertisingData(report.data) { for _ in parsed.structures {} }
            }
        }
    }
}
