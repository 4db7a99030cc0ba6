import Bluetooth
import Clocks
import Readings
import Wire

// Steps 1 to 4 of a session: the key exchange, the AES challenge, the certificates, the signed
// key challenge and the bond (docs/protocols/dexcom-g7.md §Pairing, once per sensor).
extension DexcomG7Driver {
    /// The sensor's J-PAKE packets and our own are this long (docs/protocols/dexcom-g7.md §EC J-PAKE on P-256).
    static let roundPacketLength = 160
    /// The sensor streams its signature of our nonce: 64 bytes.
    static let sensorSignatureLength = 64
    /// The most the sensor's side of one pairing step may bring: its certificates are a few
    /// hundred bytes (G7SensorKit reads them by the acknowledged length); a stream far past that
    /// is a fault, not a certificate.
    static let largestSensorCertificate = 4_096
    /// Writes to Certificate go in chunks the sensor takes (G7SensorKit `certificateChunkSize`).
    static let certificateChunk = 20

    /// Our bytes for the Certificate characteristic, in writes without response.
    static func certificateWrites(_ bytes: [UInt8]) -> [DriverAction] {
        stride(from: 0, to: bytes.count, by: certificateChunk).map { start in
            .write(DexcomG7Profile.certificate, Array(bytes[start..<min(start + certificateChunk, bytes.count)]), withResponse: false)
        }
    }

    mutating func subscribed(_ uuid: BluetoothUUID, at now: MonotonicInstant) -> [DriverAction] {
        switch session.stage {
        case .subscribingForAuthentication:
            awaitingSubscriptions.remove(uuid)
            guard awaitingSubscriptions.isEmpty else { return [] }
            if sessionKey != nil { return sendChallenge(at: now) }
            return startKeyExchange(at: now)
        case .subscribingForSession:
            awaitingSubscriptions.remove(uuid)
            guard awaitingSubscriptions.isEmpty else { return [] }
            steps = (serialNumber == nil ? [.ask(.transmitterVersion)] : []) + [.ask(.glucose), .backfillIfNeeded, .calibrateIfPending]
            if !extendedVersionKnown { steps.append(.ask(.extendedVersion)) }
            return nextStep(at: now)
        default:
            return []
        }
    }

    // MARK: Key exchange

    mutating func startKeyExchange(at now: MonotonicInstant) -> [DriverAction] {
        do throws(DexcomG7.CryptoError) {
            // Both of our packets are made now, before the sensor's first: it drops a link idle
            // for about 4 s.
            keyExchange = try DexcomG7.KeyExchange(pairingCode: configuration.pairingCode, random: makeRandom)
        } catch {
            let reason = "cannot start pairing: \(error)"
            return [.emit(.pairingFailed(reason: reason))] + stop(reason: reason, at: now)
        }
        pairedThisSession = true
        return requestRound(0, at: now)
    }

    mutating func requestRound(_ round: UInt8, at now: MonotonicInstant) -> [DriverAction] {
        certificateBuffer = []
        wait(in: .exchangingKeys(round: round), at: now)
        return [.write(DexcomG7Profile.authentication, DexcomG7.KeyExchangeRoundTx(round: round).bytes, withResponse: true)]
    }

    /// A packet of the sensor's is complete: answer with ours of the same round, then ask for
    /// the next; after the third, derive the session key and prove it.
    mutating func sensorRoundArrived(_ round: UInt8, at now: MonotonicInstant) -> [DriverAction] {
        guard let keyExchange else { return stop(reason: "key exchange state lost", at: now) }
        sensorRounds.append(Array(certificateBuffer.prefix(Self.roundPacketLength)))
        certificateBuffer = []
        switch round {
        case 0: return Self.certificateWrites(keyExchange.round1) + requestRound(1, at: now)
        case 1: return Self.certificateWrites(keyExchange.round2) + requestRound(2, at: now)
        default:
            do throws(DexcomG7.CryptoError) {
                let result = try keyExchange.finish(sensorRound1: sensorRounds[0], sensorRound2: sensorRounds[1], sensorRound3: sensorRounds[2])
                candidateKey = result.sessionKey
                var actions = Self.certificateWrites(result.round3)
                if !result.sensorProofsVerified {
                    // Advisory (docs/protocols/sources-disagree.md): the AES challenge next is
                    // the real proof of a shared key.
                    actions.append(.emit(.info(TransmitterInfo(sensorState: "key exchange: the sensor's proofs did not verify (advisory)"))))
                }
                return actions + sendChallenge(at: now)
            } catch {
                let reason = "the sensor's key-exchange packets are unusable: \(error)"
                return [.emit(.pairingFailed(reason: reason))] + stop(reason: reason, at: now)
            }
        }
    }

    // MARK: AES challenge

    /// The key this session proves: the one just agreed, or the stored one.
    var keyInUse: [UInt8]? { candidateKey ?? sessionKey }

    mutating func sendChallenge(at now: MonotonicInstant) -> [DriverAction] {
        token = Array((makeRandom(8) + [UInt8](repeating: 0, count: 8)).prefix(8))
        wait(in: .awaitingChallengeReply, at: now)
        return [.write(DexcomG7Profile.authentication, DexcomG7.ChallengeTx(token: token, displayType: configuration.displayType).bytes, withResponse: true)]
    }

    mutating func challengeReplied(_ reply: Dexcom.AuthChallengeRx, at now: MonotonicInstant) -> [DriverAction] {
        guard let key = keyInUse else { return stop(reason: "no key to answer the challenge with", at: now) }
        guard reply.tokenHash == DexcomG7.challengeAnswer(token, sessionKey: key) else {
            // Never answered: the sensor counts refusals and stops accepting connections for a
            // while after four in a row (docs/protocols/dexcom-g7.md §AES challenge).
            if pairedThisSession {
                let reason = "pairing code rejected: the sensor agreed a different key, so the code \"pairing-code\" is not this sensor's (check the 4 digits on its applicator)"
                return [.emit(.pairingFailed(reason: reason))] + stop(reason: "pairing code rejected", at: now)
            }
            sessionKey = nil
            hasBonded = false
            let reason = "the sensor no longer honours the stored key; pairing again with the code next time"
            return [.emit(.pairingFailed(reason: reason))] + stop(reason: "stored key stale", at: now)
        }
        wait(in: .awaitingAuthStatus, at: now)
        return [.write(DexcomG7Profile.authentication,
                       Dexcom.AuthChallengeTx(challengeHash: DexcomG7.challengeAnswer(reply.challenge, sessionKey: key)).bytes, withResponse: true)]
    }

    mutating func authStatusArrived(_ status: DexcomG7.AuthStatusRx, at now: MonotonicInstant) -> [DriverAction] {
        if status.isRefused {
            let why = status.refusal.map { "\($0)" } ?? "reason 0x\(String(status.bond, radix: 16))"
            if status.refusal == .noKeyForUs || status.refusal == .keyMismatch {
                sessionKey = nil  // the next session pairs again with the code
                hasBonded = false
            }
            let reason = "the sensor refused this display: \(why)"
            return [.emit(.pairingFailed(reason: reason))] + stop(reason: reason, at: now)
        }
        if pairedThisSession {
            // The key is good from here on, whatever becomes of the bond (G7SensorKit keeps it
            // at this point too): a later session proves it without the exchange.
            sessionKey = candidateKey
            return startCertificate(0, at: now)
        }
        guard status.isBonded else {
            // A reconnect that is not bonded has a key the sensor does not pair on: only a full
            // pairing with the code fixes that (G7SensorKit refuses the same way).
            sessionKey = nil
            let reason = hasBonded ? "bond lost: the sensor no longer knows our bond; pairing again with the code next time"
                : "the sensor is not bonded to this display; pairing again with the code next time"
            hasBonded = false
            return [.emit(.pairingFailed(reason: reason))] + stop(reason: reason, at: now)
        }
        wait(in: .awaitingEncryption, for: configuration.bondTimeout, at: now)
        return [.requestPairing]
    }

    // MARK: Certificates, key challenge and bond

    mutating func startCertificate(_ index: UInt8, at now: MonotonicInstant) -> [DriverAction] {
        let certificates = configuration.credentials.certificates
        certificateBuffer = []
        expectedCertificateLength = nil
        guard Int(index) < certificates.count else {
            wait(in: .awaitingCertificatesEnd, at: now)
            return [.write(DexcomG7Profile.authentication, DexcomG7.CertificateInfoTx(index: index, length: 0).bytes, withResponse: true)]
        }
        wait(in: .exchangingCertificate(index: index), at: now)
        let length = UInt32(certificates[Int(index)].count)
        return [.write(DexcomG7Profile.authentication, DexcomG7.CertificateInfoTx(index: index, length: length).bytes, withResponse: true)]
    }

    /// Sends our certificate once the sensor's own has fully arrived (its length comes in the
    /// acknowledgement, which may arrive after some of the bytes).
    mutating func certificateProgress(_ index: UInt8, at now: MonotonicInstant) -> [DriverAction] {
        guard let expected = expectedCertificateLength, certificateBuffer.count >= expected else { return [] }
        let ours = configuration.credentials.certificates[Int(index)]
        return Self.certificateWrites(ours) + startCertificate(index + 1, at: now)
    }

    mutating func startKeyChallenge(at now: MonotonicInstant) -> [DriverAction] {
        certificateBuffer = []
        keyChallenge = nil
        wait(in: .awaitingKeyChallenge, at: now)
        return [.write(DexcomG7Profile.authentication, DexcomG7.KeyChallengeTx(nonce: Array((makeRandom(16) + [UInt8](repeating: 0, count: 16)).prefix(16))).bytes,
                       withResponse: true)]
    }

    /// Signs the sensor's challenge once both its acknowledgement and its own signature are in.
    mutating func keyChallengeProgress(at now: MonotonicInstant) -> [DriverAction] {
        guard let challenge = keyChallenge, certificateBuffer.count >= Self.sensorSignatureLength else { return [] }
        let signature: [UInt8]
        do throws(DexcomG7.CryptoError) {
            signature = try configuration.credentials.sign(challenge)
        } catch {
            let reason = "cannot sign the sensor's key challenge with the credentials' key: \(error)"
            return [.emit(.pairingFailed(reason: reason))] + stop(reason: reason, at: now)
        }
        wait(in: .awaitingKeepAliveAcknowledgement, at: now)
        return Self.certificateWrites(signature)
            + [.write(DexcomG7Profile.authentication, Dexcom.KeepAliveTx(seconds: 30).bytes, withResponse: true)]
    }

    mutating func encrypted(at now: MonotonicInstant) -> [DriverAction] {
        var actions: [DriverAction] = []
        switch session.stage {
        case .awaitingBond:
            hasBonded = true
            actions.append(.emit(.paired))
        case .awaitingEncryption:
            hasBonded = true
        default:
            return []
        }
        awaitingSubscriptions = [DexcomG7Profile.control, DexcomG7Profile.backfill]
        wait(in: .subscribingForSession, at: now)
        return actions + [.subscribe(DexcomG7Profile.control, indications: true), .subscribe(DexcomG7Profile.backfill, indications: false)]
    }

    /// In any phase: while bonding or encrypting, a failure ends the session; one after an
    /// earlier bond is the bond lost, which a full pairing with the code restores.
    public mutating func pairingFailed(reason: String, abandoned: [GATTOperation], at now: MonotonicInstant) -> [DriverAction] {
        switch session.stage {
        case .awaitingBond, .awaitingEncryption:
            var text = reason
            if hasBonded {
                text = "bond lost: \(reason); pairing again with the code next time"
                sessionKey = nil
                hasBonded = false
            }
            return [.emit(.pairingFailed(reason: text))] + stop(reason: "pairing failed: \(text)", at: now)
        default:
            return [.emit(.pairingFailed(reason: reason))]
        }
    }

    // MARK: Values

    mutating func receiveValue(_ uuid: BluetoothUUID, _ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        switch uuid {
        case DexcomG7Profile.certificate: return receiveCertificateBytes(bytes, at: now)
        case DexcomG7Profile.authentication: return receiveAuthentication(bytes, at: now)
        case DexcomG7Profile.control: return receiveControl(bytes, at: now)
        case DexcomG7Profile.backfill: return receiveBackfill(bytes)
        default: return []
        }
    }

    mutating func receiveCertificateBytes(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        // A peer streaming without end (before the acknowledgement that says how much) must not
        // hold memory for the rest of the step.
        if certificateBuffer.count + bytes.count > Self.largestSensorCertificate {
            let reason = "the sensor streamed more than \(Self.largestSensorCertificate) bytes in one pairing step"
            return [.emit(.pairingFailed(reason: reason))] + stop(reason: reason, at: now)
        }
        switch session.stage {
        case let .exchangingKeys(round):
            certificateBuffer += bytes
            return certificateBuffer.count >= Self.roundPacketLength ? sensorRoundArrived(round, at: now) : []
        case let .exchangingCertificate(index):
            certificateBuffer += bytes
            return certificateProgress(index, at: now)
        case .awaitingKeyChallenge:
            certificateBuffer += bytes
            return keyChallengeProgress(at: now)
        default:
            return [.emit(.malformedValue(DexcomG7Profile.certificate, reason: "certificate bytes outside a pairing step: \(bytes.hexString)"))]
        }
    }

    mutating func receiveAuthentication(_ bytes: [UInt8], at now: MonotonicInstant) -> [DriverAction] {
        let uuid = DexcomG7Profile.authentication
        do throws(WireError) {
            switch (session.stage, bytes.first) {
            case (_, DexcomG7.KeyExchangeRoundTx.opcode), (_, 0x08):
                // Acknowledgements of our round requests (they may follow the packet itself), and
                // the sensor's note once bonded: nothing to do.
                return []
            case (.awaitingChallengeReply, Dexcom.AuthChallengeRx.opcode):
                return challengeReplied(try Dexcom.AuthChallengeRx(decoding: bytes), at: now)
            case (.awaitingAuthStatus, DexcomG7.AuthStatusRx.opcode), (.awaitingChallengeReply, DexcomG7.AuthStatusRx.opcode):
                // A sensor with no key for us refuses our challenge outright (`05 02 03`).
                return authStatusArrived(try DexcomG7.AuthStatusRx(decoding: bytes), at: now)
            case let (.exchangingCertificate(index), DexcomG7.CertificateInfoRx.opcode):
                let acknowledgement = try DexcomG7.CertificateInfoRx(decoding: bytes)
                guard acknowledgement.status == 0 else {
                    let reason = "the sensor refused our certificate \(index) (status 0x\(String(acknowledgement.status, radix: 16))): the credentials file's chain is not one it trusts"
                    return [.emit(.pairingFailed(reason: reason))] + stop(reason: reason, at: now)
                }
                // A sensor that declares no length is taken to send one as long as ours
                // (G7SensorKit falls back the same way).
                let declared = acknowledgement.sensorCertificateLength ?? configuration.credentials.certificates[Int(index)].count
                guard declared <= Self.largestSensorCertificate else {
                    let reason = "the sensor announced a certificate of \(declared) bytes (at most \(Self.largestSensorCertificate) expected)"
                    return [.emit(.pairingFailed(reason: reason))] + stop(reason: reason, at: now)
                }
                expectedCertificateLength = declared
                return certificateProgress(index, at: now)
            case (.awaitingCertificatesEnd, DexcomG7.CertificateInfoRx.opcode):
                return startKeyChallenge(at: now)
            case (.awaitingKeyChallenge, DexcomG7.KeyChallengeRx.opcode):
                let acknowledgement = try DexcomG7.KeyChallengeRx(decoding: bytes)
                guard acknowledgement.status == 0 else {
                    let reason = "the sensor refused the key challenge (status 0x\(String(acknowledgement.status, radix: 16))): it did not accept our certificates"
                    return [.emit(.pairingFailed(reason: reason))] + stop(reason: reason, at: now)
                }
                keyChallenge = acknowledgement.challenge
                return keyChallengeProgress(at: now)
            case (.awaitingKeepAliveAcknowledgement, Dexcom.KeepAliveTx.opcode):
                wait(in: .awaitingBondRequestAcknowledgement, at: now)
                return [.write(uuid, Dexcom.BondRequestTx().bytes, withResponse: true)]
            case (.awaitingBondRequestAcknowledgement, Dexcom.BondRequestTx.opcode):
                wait(in: .awaitingBond, for: configuration.bondTimeout, at: now)
                return [.emit(.needsPairing), .requestPairing]
            case (nil, _):
                return []
            default:
                return [unexpected("authentication message", on: uuid, bytes)]
            }
        } catch {
            return [.emit(.malformedValue(uuid, reason: "\(error) in \(bytes.hexString)"))]
                + stop(reason: "unreadable authentication message", at: now)
        }
    }
}
