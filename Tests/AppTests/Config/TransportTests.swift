import Testing
@testable import App

@Suite struct TransportTests {
    typealias Transport = VigilConfiguration.Transport

    static let valid: [(text: String, expected: Transport)] = [
        ("hci0", .userChannel(index: 0)),
        ("hci1", .userChannel(index: 1)),
        ("hci65535", .userChannel(index: 65535)),
        ("tcp:127.0.0.1:1234", .tcp(host: "127.0.0.1", port: 1234)),
        ("tcp:localhost:1", .tcp(host: "localhost", port: 1)),
        ("tcp:bumble.local:65535", .tcp(host: "bumble.local", port: 65535)),
        ("tcp:[::1]:9000", .tcp(host: "::1", port: 9000)),
        ("serial:/dev/ttyAMA0", .serial(path: "/dev/ttyAMA0", baud: 115_200, flowControl: false)),
        ("serial:/dev/ttyAMA0@3000000", .serial(path: "/dev/ttyAMA0", baud: 3_000_000, flowControl: false)),
        ("serial:/dev/ttyUSB0,rtscts", .serial(path: "/dev/ttyUSB0", baud: 115_200, flowControl: true)),
        ("serial:/dev/ttyS0@921600,rtscts", .serial(path: "/dev/ttyS0", baud: 921_600, flowControl: true)),
        ("serial:/dev/pts/7@1200", .serial(path: "/dev/pts/7", baud: 1200, flowControl: false)),
        ("btsnoop:/var/lib/vigil/field-trace.btsnoop", .btsnoop(path: "/var/lib/vigil/field-trace.btsnoop")),
    ]

    @Test(arguments: valid)
    func parses(text: String, expected: Transport) throws {
        #expect(try Transport(parsing: text) == expected)
    }

    @Test(arguments: valid)
    func descriptionParsesBackToTheSameTransport(text: String, expected: Transport) throws {
        #expect(try Transport(parsing: expected.description) == expected)
    }

    @Test func descriptionsAreTheCanonicalSpelling() {
        #expect(Transport.userChannel(index: 2).description == "hci2")
        #expect(Transport.tcp(host: "::1", port: 9).description == "tcp:[::1]:9")
        #expect(Transport.serial(path: "/dev/ttyS0", baud: 115_200, flowControl: true).description == "serial:/dev/ttyS0@115200,rtscts")
        #expect(Transport.btsnoop(path: "/tmp/x").description == "btsnoop:/tmp/x")
    }

    static let invalid: [(text: String, error: Transport.ParseError)] = [
        ("", .empty),
        ("hci", .missingDeviceIndex),
        ("hci0x", .invalidDeviceIndex("0x")),
        ("hci-1", .invalidDeviceIndex("-1")),
        ("hci65536", .invalidDeviceIndex("65536")),
        ("HCI0", .unknownForm("HCI0")),
        ("usb:0", .unknownForm("usb:0")),
        ("/dev/ttyAMA0", .unknownForm("/dev/ttyAMA0")),
        ("tcp:", .missingHost),
        ("tcp::1234", .missingHost),
        ("tcp:localhost", .missingPort),
        ("tcp:localhost:", .missingPort),
        ("tcp:localhost:http", .invalidPort("http")),
        ("tcp:localhost:-1", .invalidPort("-1")),
        ("tcp:localhost:0", .portOutOfRange("0")),
        ("tcp:localhost:65536", .portOutOfRange("65536")),
        ("tcp:localhost:99999999999999999999999", .portOutOfRange("99999999999999999999999")),
        ("tcp:::1:1234", .ipv6NeedsBrackets("::1")),
        ("tcp:[::1]", .missingPort),
        ("tcp:[::1:1234", .unknownForm("tcp:[::1:1234")),
        ("tcp:[]:1234", .missingHost),
        ("serial:", .missingPath(scheme: "serial")),
        ("serial:@115200", .missingPath(scheme: "serial")),
        ("serial:ttyAMA0", .relativePath("ttyAMA0")),
        ("serial:/dev/ttyAMA0@", .invalidBaud("")),
        ("serial:/dev/ttyAMA0@fast", .invalidBaud("fast")),
        ("serial:/dev/ttyAMA0@115201", .unsupportedBaud("115201")),
        ("serial:/dev/ttyAMA0@99999999999999999999999", .unsupportedBaud("99999999999999999999999")),
        ("serial:/dev/ttyAMA0,crtscts", .unknownSerialOption("crtscts")),
        ("serial:/dev/ttyAMA0,", .unknownSerialOption("")),
        ("btsnoop:", .missingPath(scheme: "btsnoop")),
        ("btsnoop:capture.btsnoop", .relativePath("capture.btsnoop")),
    ]

    @Test(arguments: invalid)
    func rejects(text: String, error: Transport.ParseError) {
        #expect(throws: error) { try Transport(parsing: text) }
    }

    @Test(arguments: Transport.supportedBaudRates)
    func acceptsEverySupportedBaudRate(baud: Int) throws {
        #expect(try Transport(parsing: "serial:/dev/ttyS0@\(baud)") == .serial(path: "/dev/ttyS0", baud: baud, flowControl: false))
    }

    @Test func errorMessagesSayWhatWouldBeRight() {
        #expect(Transport.ParseError.portOutOfRange("70000").description == "port 70000 is out of range 1-65535")
        #expect(Transport.ParseError.missingPath(scheme: "serial").description == "serial: needs a path, e.g. serial:/dev/ttyAMA0")
        #expect(Transport.ParseError.unsupportedBaud("100").description
            == "100 baud is not supported; use one of 1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400, "
            + "460800, 500000, 576000, 921600, 1000000, 1152000, 1500000, 2000000, 2500000, 3000000")
        #expect(Transport.ParseError.unknownForm("usb:0").description
            == "\"usb:0\" is not hciN, tcp:HOST:PORT, serial:/dev/ttyX[@baud][,rtscts] or btsnoop:FILE")
        #expect(Transport.ParseError.ipv6NeedsBrackets("::1").description == "IPv6 address ::1 must be in brackets, e.g. tcp:[::1]:1234")
        #expect(Transport.ParseError.relativePath("x").description == "path \"x\" must be absolute (start with /)")
    }
}
