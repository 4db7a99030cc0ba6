/// The Bubble (and Bubble Mini) Libre bridge: the same Nordic UART Service as the MiaoMiao,
/// name starting with "Bubble" (xDrip Bubble.java, xdripswift CGMBubbleTransmitter.swift;
/// docs/protocols/miaomiao-bubble.md §Bubble). No pairing.
public enum BubbleProfile {
    public static let profile = TransmitterProfile(
        advertisedService: nil,
        namePrefix: "Bubble",
        service: NordicUART.service,
        receiveCharacteristic: NordicUART.receive,
        writeCharacteristic: NordicUART.write,
        security: .none)
}
