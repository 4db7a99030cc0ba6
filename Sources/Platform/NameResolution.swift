/// A host name being resolved on a thread of its own: getaddrinfo blocks for as long as the
/// resolver likes (seconds per server that does not answer, times the retries of
/// /etc/resolv.conf), and the loop must keep turning meanwhile (docs/http-client.md).
///
/// The loop polls `descriptor`; once it is readable, `finish()` gives the addresses. A
/// resolution no longer wanted (its exchange timed out, or was cancelled) is `abandon()`ed: the
/// thread ends when getaddrinfo returns, with no one waiting for it. A numeric address needs
/// no resolver and no thread: `SocketAddress.numeric` gives it at once.
public final class NameResolution {
    /// "example.com:443": what is being resolved, for the log.
    public let target: String
    private let job: BackgroundJob<Result<[SocketAddress], PlatformError>>
    private var ended = false

    public init(host: String, port: UInt16) throws(PlatformError) {
        target = TCPConnection.target(host: host, port: port)
        job = try BackgroundJob(name: "vigil-resolve") { _ in
            do throws(PlatformError) {
                return .success(try SocketAddress.resolve(host: host, port: port))
            } catch {
                return .failure(error)
            }
        }
    }

    /// Readable (and stays readable) once the resolver has answered.
    public var descriptor: Int32 { job.descriptor }

    /// The addresses (at least one), or the resolver's reason ("Name or service not known");
    /// waits for the answer if there is none yet, so call it once `descriptor` is readable.
    public func finish() -> Result<[SocketAddress], PlatformError> {
        ended = true
        guard let result = job.finish() else {
            return .failure(PlatformError(operation: "getaddrinfo(\(target))", errno: 0, reason: "the result was already taken"))
        }
        if case .success(let addresses) = result, addresses.isEmpty {
            return .failure(PlatformError(operation: "getaddrinfo(\(target))", errno: 0, reason: "no addresses"))
        }
        return result
    }

    /// Lets the resolver finish on its own; the owner stops polling `descriptor` first.
    public func abandon() {
        guard !ended else { return }
        ended = true
        job.abandon()
    }

    /// Never waits: a resolution dropped unfinished is abandoned.
    deinit {
        if !job.isFinished { abandon() }
    }
}
