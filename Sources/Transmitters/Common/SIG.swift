import Bluetooth

/// Bluetooth SIG assigned numbers that the standard-profile drivers use (Assigned Numbers
/// §3.4 "GATT Services" and §3.8 "Characteristics"; docs/protocols/sig-common.md §UUIDs).
///
/// Kept in one namespace so a driver reads `SIG.Characteristic.batteryLevel` rather than a
/// bare `0x2A19`.
public enum SIG {
    public enum Service {
        public static let deviceInformation = BluetoothUUID(0x180A)
        public static let heartRate = BluetoothUUID(0x180D)
        public static let battery = BluetoothUUID(0x180F)
        public static let glucose = BluetoothUUID(0x1808)
        public static let continuousGlucoseMonitoring = BluetoothUUID(0x181F)
    }

    public enum Characteristic {
        public static let batteryLevel = BluetoothUUID(0x2A19)
        public static let systemID = BluetoothUUID(0x2A23)
        public static let modelNumberString = BluetoothUUID(0x2A24)
        public static let serialNumberString = BluetoothUUID(0x2A25)
        public static let firmwareRevisionString = BluetoothUUID(0x2A26)
        public static let hardwareRevisionString = BluetoothUUID(0x2A27)
        public static let softwareRevisionString = BluetoothUUID(0x2A28)
        public static let manufacturerNameString = BluetoothUUID(0x2A29)
        public static let heartRateMeasurement = BluetoothUUID(0x2A37)
        public static let bodySensorLocation = BluetoothUUID(0x2A38)
        public static let heartRateControlPoint = BluetoothUUID(0x2A39)
        public static let pnpID = BluetoothUUID(0x2A50)
    }
}
