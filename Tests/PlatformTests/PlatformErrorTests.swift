import Glibc
import Testing
@testable import Platform

@Suite struct PlatformErrorTests {
    @Test func systemErrorNamesOperationErrnoAndHint() {
        let error = PlatformError.system("socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)", errno: EAFNOSUPPORT, hint: "modprobe bluetooth")
        #expect(error.operation == "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI)")
        #expect(error.errno == EAFNOSUPPORT)
        #expect(error.reason == "Address family not supported by protocol")
        #expect(error.hint == "modprobe bluetooth")
        #expect(error.errnoName == "EAFNOSUPPORT")
        #expect(error.isWouldBlock == false)
        #expect(error.description
            == "socket(AF_BLUETOOTH, SOCK_RAW, BTPROTO_HCI) failed: Address family not supported by protocol (EAFNOSUPPORT): modprobe bluetooth")
    }

    @Test func errorWithoutErrnoOrHintReadsPlainly() {
        let error = PlatformError(operation: "read(x.btsnoop)", errno: 0, reason: "the file ends early")
        #expect(error.errnoName == nil)
        #expect(error.description == "read(x.btsnoop) failed: the file ends early")
    }

    @Test func unnamedErrnoIsShownAsANumber() {
        let error = PlatformError.system("ioctl", errno: 4095)
        #expect(error.errnoName == nil)
        #expect(error.description.hasSuffix("(errno 4095)"))
    }

    @Test(arguments: [(EAGAIN, true), (EWOULDBLOCK, true), (EINTR, false), (0, false)])
    func wouldBlockIsRecognised(code: Int32, expected: Bool) {
        #expect(PlatformError.system("read", errno: code).isWouldBlock == expected)
    }
}
