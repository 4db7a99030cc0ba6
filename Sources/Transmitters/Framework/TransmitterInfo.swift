import Readings

/// Facts about a transmitter that are not readings. Every field is optional: an `info` event
/// carries what was just learned, and the app keeps the merge.
public struct TransmitterInfo: Hashable, Sendable, CustomStringConvertible {
    public var battery: Percent?
    /// Free text in the transmitter's own vocabulary (e.g. Dexcom "warmup", Libre "ready").
    public var sensorState: String?
    public var sensorAge: Duration?
    public var bodySensorLocation: BodySensorLocation?
    public var manufacturer: String?
    public var model: String?
    public var serialNumber: String?
    public var firmware: String?
    public var hardware: String?
    public var software: String?

    public init(battery: Percent? = nil, sensorState: String? = nil, sensorAge: Duration? = nil,
                bodySensorLocation: BodySensorLocation? = nil, manufacturer: String? = nil, model: String? = nil,
                serialNumber: String? = nil, firmware: String? = nil, hardware: String? = nil, software: String? = nil) {
        self.battery = battery
        self.sensorState = sensorState
        self.sensorAge = sensorAge
        self.bodySensorLocation = bodySensorLocation
        self.manufacturer = manufacturer
        self.model = model
        self.serialNumber = serialNumber
        self.firmware = firmware
        self.hardware = hardware
        self.software = software
    }

    /// `newer`'s fields where set, ours elsewhere.
    public func merging(_ newer: TransmitterInfo) -> TransmitterInfo {
        TransmitterInfo(
            battery: newer.battery ?? battery, sensorState: newer.sensorState ?? sensorState,
            sensorAge: newer.sensorAge ?? sensorAge, bodySensorLocation: newer.bodySensorLocation ?? bodySensorLocation,
            manufacturer: newer.manufacturer ?? manufacturer, model: newer.model ?? model,
            serialNumber: newer.serialNumber ?? serialNumber, firmware: newer.firmware ?? firmware,
            hardware: newer.hardware ?? hardware, software: newer.software ?? software)
    }

    /// Sets the field a Device Information string belongs to.
    public mutating func set(_ field: DeviceInformationString, to text: String) {
        switch field {
        case .manufacturerName: manufacturer = text
        case .modelNumber: model = text
        case .serialNumber: serialNumber = text
        case .firmwareRevision: firmware = text
        case .hardwareRevision: hardware = text
        case .softwareRevision: software = text
        }
    }

    public var description: String {
        var parts: [String] = []
        if let battery { parts.append("battery \(battery)") }
        if let sensorState { parts.append("sensor \(sensorState)") }
        if let sensorAge { parts.append("sensor age \(sensorAge.seconds) s") }
        if let bodySensorLocation { parts.append("location \(bodySensorLocation)") }
        if let manufacturer { parts.append("manufacturer \(manufacturer)") }
        if let model { parts.append("model \(model)") }
        if let serialNumber { parts.append("serial \(serialNumber)") }
        if let firmware { parts.append("firmware \(firmware)") }
        if let hardware { parts.append("hardware \(hardware)") }
        if let software { parts.append("software \(software)") }
        return parts.isEmpty ? "(empty)" : parts.joined(separator: ", ")
    }
}
