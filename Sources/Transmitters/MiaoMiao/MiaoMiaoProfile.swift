/// The MiaoMiao Libre 1 bridge (called "Tomato" in xDrip): Nordic UART Service, name starting
/// with "miaomiao" (xDrip Tomato.java `isTomato`; docs/protocols/miaomiao-bubble.md §MiaoMiao). It
/// does not advertise the service UUID in every firmware, so the name prefix is what matching
/// relies on. No pairing.
public enum MiaoMiaoProfile {
    public static let profile = TransmitterProfile(
        advertisedService: nil,
        namePrefix: "miaomiao",
        service: NordicUART.service,
        receiveCharacteristic: NordicUART.receive,
        writeCharacteristic: NordicUART.write,
        security: .none)
}
