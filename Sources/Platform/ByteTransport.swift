/// A non-blocking byte stream (TCP, serial, PTY) or packet socket (the HCI user channel) that the
/// executable registers with `PollLoop` and feeds to the sans-IO core.
///
/// - `read(into:maxCount:)` replaces `buffer`'s contents with at most `maxCount` bytes and returns
///   how many (`buffer.count` afterwards). It returns 0 only at end of stream: the peer closed, or
///   the terminal hung up. When nothing is available right now it throws an error whose
///   `isWouldBlock` is true, so "no data yet" can never be mistaken for "gone". Read only after
///   `PollLoop` reports the descriptor readable and this does not happen. A packet socket returns
///   one whole packet per read and throws if the packet was longer than `maxCount`, because a
///   truncated HCI packet would be misparsed.
/// - `write(_:)` sends every byte or throws. It waits briefly for room when the kernel's buffer is
///   full, but a write that cannot finish within about a second is an error, never a hang.
/// - `close()` may be called more than once; `fileDescriptor` is -1 afterwards.
public protocol ByteTransport: AnyObject {
    var fileDescriptor: Int32 { get }
    func read(into buffer: inout [UInt8], maxCount: Int) throws(PlatformError) -> Int
    func write(_ bytes: [UInt8]) throws(PlatformError)
    func close()
}
