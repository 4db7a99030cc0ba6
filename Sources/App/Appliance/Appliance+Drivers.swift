import Bluetooth
import Clocks
import Host
import Readings
import Transmitters

// Driver bridging: a driver's UUID-level actions become GATT operations on the handles the
// appliance discovered, and the host's answers come back to the driver as inputs.
extension Appliance {

    mutating func gattResult(handle: UInt16, id: GATTClient.RequestID, result: GATTClient.Result, host: inout Host, at now: MonotonicInstant) {
        guard let i = slots.firstIndex(where: { $0.handle == handle }) else { return }
        if case .discovering(_, let request) = slots[i].state, request == id {
            switch result {
            case .database(let database):
                databaseDiscovered(i, handle: handle, database: database, host: &host, at: now)
            case .failed(let failure) where failure.needsSecurity && !slots[i].securityFirst:
                slots[i].state = .securing(handle: handle)
                host.secure(handle: handle, at: now)
            case .failed(let failure):
                slots[i].progress.reach(.refused)
                events.append(.transmitter(slots[i].device, peer: slots[i].peer, .incompatible(reason: "discovery failed: \(failure)")))
                close(i, handle: handle, reason: "discovery failed", host: &host, at: now)
            default:
                break
            }
            return
        }
        guard let operation = slots[i].pending.removeValue(forKey: id) else { return }
        let input: DriverInput
        switch (operation, result) {
        case (.read(let uuid), .value(let bytes)): input = .value(uuid, bytes, origin: .read)
        case (.write(let uuid), .written): input = .writeCompleted(uuid)
        case (.subscribe(let uuid), .written): input = .subscribed(uuid)
        case (_, .failed(let failure)): input = .operationFailed(operation.gattOperation, Self.operationFailure(failure))
        default: input = .operationFailed(operation.gattOperation, .other("unexpected GATT result"))
        }
        let actions = slots[i].driver.receive(input, at: now)
        perform(actions, slot: i, handle: handle, host: &host, at: now)
    }

    mutating func deliverValue(handle: UInt16, attribute: UInt16, value: [UInt8], origin: ValueOrigin, host: inout Host, at now: MonotonicInstant) {
        guard let i = slots.firstIndex(where: { $0.state == .running(handle: handle) }) else { return }
        guard let characteristic = slots[i].database?.characteristic(valueHandle: attribute) else {
            if let count = slots[i].ignoredValues.count(at: now) {
                events.append(.ignoredValues(slots[i].device, peer: slots[i].peer, attribute: attribute, count: count))
            }
            return
        }
        let actions = slots[i].driver.receive(.value(characteristic.uuid, value, origin: origin), at: now)
        perform(actions, slot: i, handle: handle, host: &host, at: now)
    }

    mutating func perform(_ actions: [DriverAction], slot i: Int, handle: UInt16, host: inout Host, at now: MonotonicInstant, linkGone: Bool = false) {
        var readings: [Reading] = []
        let device = slots[i].device
        let peer = slots[i].peer
        for action in actions {
            if case .emit(.reading(let reading)) = action {
                slots[i].progress.reach(.delivered)
                // A reading received again (re-read at a reconnection, repeated by a backfill)
                // was handed on already: alarms, history and outputs see each reading once.
                if slots[i].delivered.admit(reading) { readings.append(reading) }
                continue
            }
            if !readings.isEmpty {
                events.append(.readings(device, peer: peer, readings))
                readings.removeAll()
            }
            switch action {
            case .emit(let event):
                if case .disconnected = event { continue }  // the appliance reports disconnections itself
                if case .connected = event { slots[i].progress.reach(.connected) }
                if case .incompatible = event { slots[i].progress.reach(.refused) }
                events.append(.transmitter(device, peer: peer, event))
            case .read(let uuid):
                guard !linkGone else { continue }
                request(.read(uuid), slot: i, handle: handle, host: &host, at: now) { c in
                    c.properties.contains(.read) ? .read(handle: c.valueHandle) : nil
                }
            case let .write(uuid, bytes, withResponse):
                guard !linkGone else { continue }
                request(.write(uuid), slot: i, handle: handle, host: &host, at: now) { c in
                    withResponse ? .write(handle: c.valueHandle, value: bytes) : .writeWithoutResponse(handle: c.valueHandle, value: bytes)
                }
            case let .subscribe(uuid, indications):
                guard !linkGone else { continue }
                request(.subscribe(uuid), slot: i, handle: handle, host: &host, at: now) { c in
                    c.cccdHandle.map { .write(handle: $0, value: [indications ? 0x02 : 0x01, 0x00]) }
                }
            case .requestPairing:
                guard !linkGone else { continue }
                slots[i].driverAwaitsEncryption = true
                if host.isEncrypted(handle) {
                    slots[i].driverAwaitsEncryption = false
                    let more = slots[i].driver.receive(.encrypted, at: now)
                    perform(more, slot: i, handle: handle, host: &host, at: now)
                } else {
                    host.secure(handle: handle, at: now)
                }
            case .disconnect(let reason):
                guard !linkGone else { continue }
                close(i, handle: handle, reason: "driver: \(reason)", host: &host, at: now)
            case .nextSession(let notBefore):
                slots[i].progress.reach(.delivered)
                slots[i].nextSessionAt = notBefore
            }
        }
        if !readings.isEmpty {
            events.append(.readings(device, peer: peer, readings))
            routeCalibrations(readings, from: i, host: &host, at: now)
        }
        if let persistent = slots[i].driver as? any PersistentDriverState, persistent.persistentState != slots[i].savedState {
            slots[i].savedState = persistent.persistentState
            events.append(.driverState(device, slots[i].savedState))
        }
    }

    /// A meter's fingersticks are calibration points for every other transmitter (drivers that
    /// report raw values use them; the rest ignore them). Meter records carry the meter's
    /// wall-clock time; drivers take monotonic time, so convert with the host's wall clock.
    mutating func routeCalibrations(_ readings: [Reading], from source: Int, host: inout Host, at now: MonotonicInstant) {
        for reading in readings {
            guard case .meterGlucose(let reference, _) = reading.value else { continue }
            let takenAt: MonotonicInstant = switch reading.time {
            case .monotonic(let instant): instant
            case .wallClock(let time): now - (host.wallClock - time)
            }
            for j in slots.indices where j != source {
                if case .running(let handle) = slots[j].state {
                    let actions = slots[j].driver.receive(.calibration(reference, takenAt: takenAt), at: now)
                    perform(actions, slot: j, handle: handle, host: &host, at: now)
                } else {
                    slots[j].pendingCalibrations.append((reference, takenAt))
                    if slots[j].pendingCalibrations.count > 10 { slots[j].pendingCalibrations.removeFirst() }
                }
            }
        }
    }

    /// Maps a driver operation to a GATT operation on a discovered characteristic; answers the
    /// driver at once when the characteristic or the property is missing.
    mutating func request(_ operation: TransmitterSlot.PendingOperation, slot i: Int, handle: UInt16, host: inout Host, at now: MonotonicInstant, _ make: (GATT.Characteristic) -> GATTClient.Operation?) {
        let uuid = operation.gattOperation.characteristic
        guard let characteristic = slots[i].database?.characteristic(uuid), let gattOperation = make(characteristic) else {
            let actions = slots[i].driver.receive(.operationFailed(operation.gattOperation, .unsupported("\(uuid) is missing or lacks the property for \(operation.gattOperation)")), at: now)
            perform(actions, slot: i, handle: handle, host: &host, at: now)
            return
        }
        let id = host.gatt(gattOperation, on: handle, at: now)
        slots[i].pending[id] = operation
    }

    static func operationFailure(_ failure: GATT.Failure) -> OperationFailure {
        switch failure {
        case .attributeError(let code, _): .attError(code: code.rawValue)
        case .timedOut: .timedOut
        default: .other("\(failure)")
        }
    }
}
