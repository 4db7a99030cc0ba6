import Bluetooth
import Clocks
import Synchronization
import Transmitters
import Wire

/// A simulated MiaoMiao Libre 1 bridge: Nordic UART Service (docs/protocols/miaomiao-bubble.md
/// §MiaoMiao), advertising the name "miaomiao-sim", serving a real Libre 1 FRAM (xDrip's
/// NFCReaderXTest `data_libre1`, the same dump the Libre tests use) wrapped in a 363-byte MiaoMiao
/// data packet, in 20-byte notifications (the payload of the default ATT_MTU of 23).
///
/// The packet header is synthetic (no real MiaoMiao capture was available): sensor UID
/// `2C5E8B0000A407E0`, battery 87 %, firmware `0039`, hardware `0001`, minute counter 0x1381.
///
/// How it differs from a real bridge, and why: `SimulatedPeripheral` pushes a subscribed
/// characteristic's value on a fixed interval and cannot stay quiet between pushes, so this
/// bridge streams the packet back to back, one notification every `notificationInterval`, rather
/// than once every 5 minutes. A write of `F0` (start reading) restarts the stream at the
/// packet's first byte on the next notification, so a central that subscribes and writes `F0`,
/// as Vigil's driver does, receives whole packets from the start. `D3 xx` and `D1 xx` writes are
/// accepted and ignored.
public enum SimulatedMiaoMiao {
    public static let address = DeviceAddress(Address(value: 0xC0_4D_49_41_4F_01), type: .random)
    public static let name = "miaomiao-sim"

    /// xDrip app/src/test/java/com/eveningoutpost/dexdrip/NFCReaderXTest.java `data_libre1`
    /// (NightscoutFoundation/xDrip); CRCs 0x9945 / 0x2446 / 0x6A4F, state ready, age 4993 min.
    public static let xDripLibre1FRAM = [UInt8](hex: """
        45 99 08 1b 03 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00
        46 24 00 0c d3 04 00 00 9d 80 b8 04 00 00 5d 80 c1 04 00 10 9d 80 ce 04
        00 00 9d 80 d2 04 00 e8 9c 80 c9 04 00 dc 5c 80 c3 04 00 c4 9c 80 c8 04
        00 8c 5c 80 cb 04 00 64 5c 80 cf 04 00 40 5c 80 ea 04 00 f8 5b 80 28 05
        00 a8 5b 80 3c 05 00 80 5b 80 48 05 00 9c 5b 80 32 05 00 ec 9b 80 2b 05
        00 e0 5b 80 68 04 00 b0 57 80 4a 03 00 f4 9b 80 fd 02 00 d0 9b 80 00 03
        00 14 5c 80 42 03 00 58 5b 80 a0 03 00 fc 9c 80 23 04 00 78 5d 80 ca 04
        00 94 9d 80 f8 04 00 6c 9d 80 78 04 00 d4 9d 80 72 04 00 5c 5c 80 c6 04
        00 00 9d 80 86 04 00 08 9d 80 58 04 00 e0 9d 80 31 04 00 38 9e 80 33 04
        00 e8 5b 80 b7 04 00 cc 5a 80 a4 04 00 18 5a 80 dc 04 00 fc 5a 80 e1 04
        00 90 5a 80 8b 04 00 d0 59 80 18 04 00 84 59 80 c2 03 00 24 59 80 5b 03
        00 9c 58 80 5b 03 00 70 58 80 7f 03 00 40 58 80 e3 03 00 9c 58 80 ae 04
        00 bc 58 80 5d 05 00 c4 18 80 a5 05 00 20 58 80 14 05 00 bc 17 80 88 04
        00 fc 57 80 81 13 01 00 4f 6a 30 08 4b 0b 58 51 14 03 96 80 5a 00 cd a6
        14 7e 1a 00 00 f3 c8 6b
        """)

    public static let sensorUID = [UInt8](hex: "2c 5e 8b 00 00 a4 07 e0")

    /// The 363-byte MiaoMiao data packet around `fram` (layout: `MiaoMiaoPacket`).
    public static func packet(fram: [UInt8] = xDripLibre1FRAM, battery: UInt8 = 87) -> [UInt8] {
        [0x28, 0x01, 0x6B, 0x13, 0x81] + sensorUID + [battery, 0x00, 0x39, 0x00, 0x01] + fram + [0x29]
    }

    /// `packet` cut into notifications of at most `size` bytes.
    public static func notifications(of packet: [UInt8] = packet(), size: Int = 20) -> [[UInt8]] {
        stride(from: 0, to: packet.count, by: size).map { Array(packet[$0 ..< min($0 + size, packet.count)]) }
    }

    public static func peripheral(address: DeviceAddress = address, name: String = name, rssi: Int8 = -58,
                                  notificationInterval: Duration = .milliseconds(500),
                                  advertisingInterval: Duration = .milliseconds(100)) -> SimulatedPeripheral {
        let stream = Stream(notifications: notifications())
        var ad = AdvertisingData.Builder()
        ad.flags(0x06)  // LE General Discoverable, BR/EDR Not Supported (CSS Part A §1.3)
        ad.completeName(name)
        let services = [
            SimulatedService(NordicUART.service, characteristics: [
                SimulatedCharacteristic(NordicUART.receive, properties: .notify,
                                        value: .computed { _ in stream.next() }, updateInterval: notificationInterval),
                SimulatedCharacteristic(NordicUART.write, properties: [.write, .writeWithoutResponse], writeHandler: { bytes in
                    if bytes == MiaoMiao.Command.startReading.bytes { stream.restart() }
                    return nil
                }),
            ]),
        ]
        return SimulatedPeripheral(
            address: address,
            advertising: AdvertisingConfiguration(kind: .connectable, interval: advertisingInterval, data: ad.bytes),
            services: services, rssi: rssi)
    }

    /// The position in the notification cycle, shared by the value and write closures (both
    /// `@Sendable`, hence the lock; the simulator itself is single-threaded).
    final class Stream: Sendable {
        let notifications: [[UInt8]]
        private let position = Mutex(0)

        init(notifications: [[UInt8]]) { self.notifications = notifications }

        func restart() { position.withLock { $0 = 0 } }

        func next() -> [UInt8] {
            position.withLock { index in
                defer { index = (index + 1) % notifications.count }
                return notifications[index]
            }
        }
    }
}
