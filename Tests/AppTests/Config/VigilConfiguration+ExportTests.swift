import App
import Testing

/// `[export]`: the serial port the export protocol answers on and the USB stick's mount point.
@Suite struct VigilConfigurationExportTests {
    func parse(_ text: String) throws(ConfigurationErrors) -> VigilConfiguration {
        try VigilConfiguration(parsing: text, knownDeviceTypes: ["heart-rate"])
    }

    @Test func defaultsAreNoSerialPortAndTheUsualStickMount() throws {
        let export = try parse("").export
        #expect(export.serialPort == nil)
        #expect(export.serialBaud == 115_200)
        #expect(export.usbMountPoint == "/media/usb")
    }

    @Test func aPortWithItsSpeedAndAnotherMountPoint() throws {
        let export = try parse("[export]\nserial = \"/dev/ttyUSB0@57600\"\nusb = \"/mnt/stick\"\n").export
        #expect(export.serialPort == "/dev/ttyUSB0")
        #expect(export.serialBaud == 57_600)
        #expect(export.usbMountPoint == "/mnt/stick")
    }

    @Test func emptyTurnsEitherOff() throws {
        let export = try parse("[export]\nserial = \"\"\nusb = \"\"\n").export
        #expect(export.serialPort == nil)
        #expect(export.usbMountPoint == nil)
    }

    @Test(arguments: [
        ("[export]\nserial = \"ttyGS0\"\n", "2:10"),
        ("[export]\nserial = \"/dev/ttyGS0@fast\"\n", "2:10"),
        ("[export]\nusb = \"media/usb\"\n", "2:7"),
        ("[export]\nserail = \"/dev/ttyGS0\"\n", "2:1"),
    ])
    func badValuesAreErrorsAtTheirLine(text: String, at position: String) {
        do {
            _ = try parse(text)
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.errors.count == 1)
            #expect(error.errors.first.map { "\($0.position.line):\($0.position.column)" } == position, "\(error.errors)")
        }
    }
}
