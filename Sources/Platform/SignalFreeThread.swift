#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `pthread_create` with every signal blocked on the new thread: signals must reach the event
/// loop's signalfd, never a helper thread, where SIGTERM would take its default action and end
/// Vigil mid-work. The thread inherits the creator's mask, so all are blocked around the create
/// and the creator's mask is restored after. Returns the thread, or the error number.
func createSignalFreeThread(_ main: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer?,
                            _ context: UnsafeMutableRawPointer) -> Result<pthread_t, PlatformErrno> {
    var all = sigset_t()
    var previous = sigset_t()
    sigfillset(&all)
    pthread_sigmask(SIG_BLOCK, &all, &previous)
    defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
    var created = pthread_t()
    let result = pthread_create(&created, nil, main, context)
    return result == 0 ? .success(created) : .failure(PlatformErrno(code: result))
}

/// An error number from a call that returns it (pthread_create) rather than setting errno.
struct PlatformErrno: Error {
    let code: Int32
}
