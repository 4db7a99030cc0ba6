import Bluetooth

/// Names of the services, characteristics and descriptors people meet with Vigil's
/// transmitters (Bluetooth Assigned Numbers §3.4–3.8), for `vigil gatt` and logs.
public enum AssignedNumbers {
    static let names: [UInt16: String] = [
        0x1800: "Generic Access", 0x1801: "Generic Attribute", 0x180A: "Device Information",
        0x180D: "Heart Rate", 0x180F: "Battery", 0x1808: "Glucose", 0x181F: "Continuous Glucose Monitoring",
        0x181A: "Environmental Sensing", 0xFEBC: "Dexcom",
        0x2A00: "Device Name", 0x2A01: "Appearance", 0x2A04: "Peripheral Preferred Connection Parameters",
        0x2A05: "Service Changed", 0x2A19: "Battery Level", 0x2A23: "System ID", 0x2A24: "Model Number String",
        0x2A25: "Serial Number String", 0x2A26: "Firmware Revision String", 0x2A27: "Hardware Revision String",
        0x2A28: "Software Revision String", 0x2A29: "Manufacturer Name String", 0x2A2A: "IEEE 11073-20601 Regulatory Certification Data List",
        0x2A37: "Heart Rate Measurement", 0x2A38: "Body Sensor Location", 0x2A39: "Heart Rate Control Point",
        0x2A18: "Glucose Measurement", 0x2A34: "Glucose Measurement Context", 0x2A51: "Glucose Feature",
        0x2A52: "Record Access Control Point", 0x2A50: "PnP ID", 0x2AA7: "CGM Measurement", 0x2AA8: "CGM Feature",
        0x2AA9: "CGM Status", 0x2AAA: "CGM Session Start Time", 0x2AAB: "CGM Session Run Time",
        0x2AAC: "CGM Specific Ops Control Point", 0x2B29: "Client Supported Features", 0x2B2A: "Database Hash",
        0x2900: "Characteristic Extended Properties", 0x2901: "Characteristic User Description",
        0x2902: "Client Characteristic Configuration", 0x2903: "Server Characteristic Configuration",
        0x2904: "Characteristic Presentation Format",
    ]

    public static func name(of uuid: BluetoothUUID) -> String? { uuid.uuid16.flatMap { names[$0] } }
}
