import Bluetooth
import Clocks
import Host
import Readings
import Transmitters

// Driver bridging: a driver's UUID-level actions become GATT operations on the handles the
// slot discovered, and the host's answers go back to the driver as inputs.
extension TransmitterSlot {
    /// Carries out what the driver asked. `linkGone`: the driver is hearing of the link's end,
    /// so anything that needs the link is dropped.
    mutating func perform(_ actions: [DriverAction], on handle: UInt16, _ step: inout Step, linkGone: Bool = false) {
        var readings: [Reading] = []
        for action in actions {
            if case .emit(.reading(let reading)) = action {
                rememberProvenPeer(&step)
                link.progress.reach(.delivered)
                // A reading received again (re-read at a reconnection, repeated by a backfill)
                // was handed on already: alarms, history and outputs see each reading once.
                if delivered.admit(reading) { readings.append(reading) }
                continue
            }
            if !readings.isEmpty {
                step.emit(.readings(device, peer: peer, readings))
                readings.removeAll()
            }
            switch action {
            case .emit(let event):
                if case .disconnected = event { continue }  // the slot reports disconnections itself
                if case .connected = event { link.progress.reach(.connected) }
                if case .paired = event { rememberProvenPeer(&step) }
                if case .incompatible = event { link.progress.reach(.refused) }
                step.emit(.transmitter(device, peer: peer, event))
            case .read(let uuid):
                guard !linkGone else { continue }
                request(.read(uuid), on: handle, &step) { c in
                    c.properties.contains(.read) ? .read(handle: c.valueHandle) : nil
                }
            case let .write(uuid, bytes, withResponse):
                guard !linkGone else { continue }
                request(.write(uuid), on: handle, &step) { c in
                    withResponse ? .write(handle: c.valueHandle, value: bytes) : .writeWithoutResponse(handle: c.valueHandle, value: bytes)
                }
            case let .subscribe(uuid, indications):
                guard !linkGone else { continue }
                request(.subscribe(uuid), on: handle, &step) { c in
                    c.cccdHandle.map { .write(handle: $0, value: [indications ? 0x02 : 0x01, 0x00]) }
                }
            case .requestPairing:
                guard !linkGone else { continue }
                if step.linkIsEncrypted {
                    perform(driver.receive(.encrypted, at: step.now), on: handle, &step)
                } else {
                    link.driverAwaitsEncryption = true
                    step.effects.append(.secure(handle: handle))
                }
            case .disconnect(let reason):
                guard !linkGone else { continue }
                close(handle, reason: "driver: \(reason)", &step)
            case .nextSession(let notBefore):
                link.progress.reach(.delivered)
                link.nextSessionAt = notBefore
            }
        }
        if !readings.isEmpty {
            step.emit(.readings(device, peer: peer, readings))
            // A meter's fingersticks are calibration points for every other transmitter
            // (drivers that report raw values use them; the rest ignore them).
            for reading in readings {
                if case .meterGlucose(let reference, _) = reading.value {
                    step.effects.append(.calibrateOthers(reference, takenAt: reading.time))
                }
            }
        }
        if let persistent = driver as? any PersistentDriverState, persistent.persistentState != savedState {
            savedState = persistent.persistentState
            step.emit(.driverState(device, savedState))
        }
    }

    /// Maps a driver operation to a GATT operation on a discovered characteristic; answers the
    /// driver at once when the characteristic or the property is missing.
    private mutating func request(_ operation: GATTOperation, on handle: UInt16, _ step: inout Step,
                                  _ make: (GATT.Characteristic) -> GATTClient.Operation?) {
        let uuid = operation.characteristic
        guard let characteristic = link.database?.characteristic(uuid), let gattOperation = make(characteristic) else {
            let failure = OperationFailure.unsupported("\(uuid) is missing or lacks the property for \(operation)")
            perform(driver.receive(.operationFailed(operation, failure), at: step.now), on: handle, &step)
            return
        }
        step.effects.append(.gatt(gattOperation, handle: handle, for: .driver(operation)))
    }

    /// The driver's input for the host's answer to one of its operations.
    static func answer(to operation: GATTOperation, _ result: GATTClient.Result) -> DriverInput {
        switch (operation, result) {
        case (.read(let uuid), .value(let bytes)): .value(uuid, bytes, origin: .read)
        case (.write(let uuid), .written): .writeCompleted(uuid)
        case (.subscribe(let uuid), .written): .subscribed(uuid)
        case (_, .failed(let failure)): .operationFailed(operation, operationFailure(failure))
        default: .operationFailed(operation, .other("unexpected GATT result"))
        }
    }

    static func operationFailure(_ failure: GATT.Failure) -> OperationFailure {
        switch failure {
        case .attributeError(let code, _): .attError(code: code.rawValue)
        case .timedOut: .timedOut
        default: .other("\(failure)")
        }
    }
}

extension TransmitterSlot {
    /// A type remembered once proven (`TransmitterProfile.RememberMoment.whenProven`): the first
    /// reading or bond on this link proves the peer is this device's.
    mutating func rememberProvenPeer(_ step: inout Step) {
        guard driver.profile.remembersPeer == .whenProven, let peer, matcher.remembered != peer else { return }
        step.effects.append(.remember(peer))
    }
}
