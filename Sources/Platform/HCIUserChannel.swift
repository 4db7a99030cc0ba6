#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CPlatform

/// Exclusive raw access to a Bluetooth controller through the Linux HCI user channel, so Vigil
/// is its own host and BlueZ (bluetoothd) stays out of the way.
///
/// Linux net/bluetooth/hci_sock.c `hci_sock_bind` with `HCI_CHANNEL_USER`: needs CAP_NET_ADMIN,
/// refuses a controller that is up (EBUSY) or already held by another user channel (EUSERS).
/// Each read and write is one whole H4 packet (type byte first). See docs/protocols/hci.md §Linux
/// HCI user channel.
public enum HCIUserChannel {
    /// The largest H4 packet the kernel hands over: type byte + ACL header (4) + up to 65535
    /// bytes of data. Pass at least this as `maxCount` so a packet is never cut short.
    public static let maximumPacketSize = 1 + 4 + 65535

    /// Opens controller `hci<index>` for exclusive use: socket, HCIDEVDOWN, bind to the user channel.
    public static func open(index: Int) throws(PlatformError) -> any ByteTransport {
        let device = "hci\(index)"
        guard (0..<0xFFFF).contains(index) else {
            throw PlatformError(
                operation: "open(\(device))", errno: EINVAL,
                reason: "a controller index is 0...65534", hint: "use 0 for hci0")
        }
        let fd = vigil_hci_socket()
        guard fd >= 0 else {
            let code = currentErrno
            throw .system("socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)", errno: code, hint: hint(forErrno: code, device: device))
        }
        // The kernel refuses the user channel while the controller is up, and bluetoothd powers
        // it up at boot; bring it down first (what `hciconfig hci0 down` does).
        if vigil_hci_device_down(fd, Int32(index)) != 0 {
            let code = currentErrno
            closeDescriptor(fd)
            throw .system("ioctl(\(device), HCIDEVDOWN)", errno: code, hint: hint(forErrno: code, device: device))
        }
        if vigil_hci_bind(fd, Int32(index), VIGIL_HCI_CHANNEL_USER) != 0 {
            let code = currentErrno
            closeDescriptor(fd)
            throw .system("bind(\(device), HCI_CHANNEL_USER)", errno: code, hint: hint(forErrno: code, device: device))
        }
        return try FileDescriptorTransport(adopting: fd, kind: .packetSocket, name: device)
    }

    /// What a person can do about `errno` from opening the user channel on `device`.
    static func hint(forErrno code: Int32, device: String) -> String? {
        switch code {
        case EAFNOSUPPORT, EPROTONOSUPPORT:
            return "this kernel has no Bluetooth support (modprobe bluetooth)"
        case ENODEV:
            return "no controller \(device): check `ls /sys/class/bluetooth`"
        case EBUSY:
            return "\(device) is in use: stop bluetooth.service (systemctl stop bluetooth) or `btmgmt -i \(device) power off`"
        case EUSERS:
            return "another program holds the user channel of \(device): stop it (another Vigil, or a Bumble/btstack tool)"
        case EPERM, EACCES:
            return "needs CAP_NET_ADMIN (and CAP_NET_RAW): run as root or setcap cap_net_admin,cap_net_raw+ep on the vigil binary"
        case ERFKILL:
            return "Bluetooth is blocked by rfkill: rfkill unblock bluetooth"
        case EALREADY:
            return "\(device) is already bound by this socket"
        default:
            return nil
        }
    }
}
