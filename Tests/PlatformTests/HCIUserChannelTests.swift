import Clocks
import Glibc
import Testing
@testable import Platform

/// Whether the kernel has Bluetooth (the class appears when the bluetooth module is loaded).
private let kernelHasBluetooth = FileSystem.exists(path: "/sys/class/bluetooth")
/// A real hci0 must never be taken down by a unit test.
private let realControllerPresent = FileSystem.exists(path: "/sys/class/bluetooth/hci0")

@Suite struct HCIUserChannelTests {
    // The hints are what a person sees on the console; they must name the fix exactly.
    @Test(arguments: [
        (EAFNOSUPPORT, "this kernel has no Bluetooth support (modprobe bluetooth)"),
        (EPROTONOSUPPORT, "this kernel has no Bluetooth support (modprobe bluetooth)"),
        (ENODEV, "no controller hci0: check `ls /sys/class/bluetooth`"),
        (EBUSY, "hci0 is in use: stop bluetooth.service (systemctl stop bluetooth) or `btmgmt -i hci0 power off`"),
        (EUSERS, "another program holds the user channel of hci0: stop it (another Vigil, or a Bumble/btstack tool)"),
        (EPERM, "needs CAP_NET_ADMIN (and CAP_NET_RAW): run as root or setcap cap_net_admin,cap_net_raw+ep on the vigil binary"),
        (EACCES, "needs CAP_NET_ADMIN (and CAP_NET_RAW): run as root or setcap cap_net_admin,cap_net_raw+ep on the vigil binary"),
        (ERFKILL, "Bluetooth is blocked by rfkill: rfkill unblock bluetooth"),
    ])
    func hintForErrno(code: Int32, hint: String) {
        #expect(HCIUserChannel.hint(forErrno: code, device: "hci0") == hint)
    }

    @Test func unknownErrnoHasNoMadeUpHint() {
        #expect(HCIUserChannel.hint(forErrno: EIO, device: "hci0") == nil)
    }

    @Test(arguments: [-1, 0xFFFF, 100_000])
    func outOfRangeIndexIsRejectedBeforeAnySyscall(index: Int) {
        do {
            _ = try HCIUserChannel.open(index: index)
            Issue.record("open(index: \(index)) succeeded")
        } catch {
            #expect(error.errno == EINVAL)
            #expect(error.operation == "open(hci\(index))")
            #expect(error.reason == "a controller index is 0...65534")
        }
    }

    /// This machine (and CI) has no Bluetooth in the kernel: socket(AF_BLUETOOTH) fails with
    /// EAFNOSUPPORT, checked by hand here with python3 `socket.socket(31, socket.SOCK_RAW, 1)`.
    @Test(.enabled(if: !kernelHasBluetooth, "the kernel has Bluetooth; the no-Bluetooth error cannot be provoked here"))
    func kernelWithoutBluetoothGivesClearErrorAtOnce() {
        let start = SystemClock.monotonicNow()
        do {
            _ = try HCIUserChannel.open(index: 0)
            Issue.record("opened hci0 on a kernel without Bluetooth")
        } catch {
            #expect(error.errno == EAFNOSUPPORT)
            #expect(error.operation == "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)")
            #expect(error.description
                == "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI) failed: Address family not supported by protocol (EAFNOSUPPORT): this kernel has no Bluetooth support (modprobe bluetooth)")
        }
        #expect(SystemClock.monotonicNow() - start < .seconds(1))
    }

    /// With Bluetooth in the kernel but no controller, HCIDEVDOWN on index 0 reports ENODEV
    /// (it needs CAP_NET_ADMIN first, hence root).
    @Test(.enabled(if: kernelHasBluetooth && !realControllerPresent && getuid() == 0,
                   "needs a Bluetooth-capable kernel with no hci0, as root"))
    func missingControllerGivesClearErrorAtOnce() {
        let start = SystemClock.monotonicNow()
        do {
            _ = try HCIUserChannel.open(index: 0)
            Issue.record("opened a controller that does not exist")
        } catch {
            #expect(error.errno == ENODEV)
            #expect(error.operation == "ioctl(hci0, HCIDEVDOWN)")
            #expect(error.hint == "no controller hci0: check `ls /sys/class/bluetooth`")
        }
        #expect(SystemClock.monotonicNow() - start < .seconds(1))
    }
}
