import App
import ArgumentParser
import Platform
import TLS

/// The authorities HTTPS servers must chain to (`[network] ca-file`, docs/network.md), read
/// when first needed: a box that makes no HTTPS exchange never holds the system's bundle in
/// memory. A file that cannot be read is read again at the next exchange (the ca-certificates
/// package installed meanwhile); one that was read is kept.
final class CertificateAuthorities {
    /// The bundle's path, as opened.
    let path: String
    /// Whether it is the system's (`ca-file = ""`).
    let isSystemBundle: Bool
    private var loaded: TLS.ClientContext?

    init(path: String?) {
        self.path = path ?? TLS.ClientContext.systemAuthoritiesPath
        isSystemBundle = path == nil
    }

    /// An explicit file, already read (by `NetworkSetup.load`).
    init(path: String, context: TLS.ClientContext) {
        self.path = path
        isSystemBundle = false
        loaded = context
    }

    /// Why there are no authorities to check a server against: the line for the user.
    struct Unavailable: Error, CustomStringConvertible {
        let description: String
    }

    /// The context, or the line that says why there is none.
    func context() -> Result<TLS.ClientContext, Unavailable> {
        if let loaded { return .success(loaded) }
        switch Self.read(path) {
        case let .success(context):
            loaded = context
            return .success(context)
        case let .failure(unavailable):
            return .failure(Unavailable(description: "\(isSystemBundle ? "the system's CA bundle" : "[network] ca-file") \(TOML.quoted(path)): \(unavailable)"))
        }
    }

    static func read(_ path: String) -> Result<TLS.ClientContext, Unavailable> {
        do throws(PlatformError) {
            let bundle = try FileSystem.readFile(path: path)
            do throws(TLS.Failure) {
                return .success(try TLS.ClientContext(authoritiesPEM: bundle))
            } catch {
                return .failure(Unavailable(description: error.description))
            }
        } catch {
            return .failure(Unavailable(description: error.description))
        }
    }
}

/// `[network]` made real for `vigil run`, `vigil config check` and `vigil fetch`: an explicit
/// `ca-file` is read and checked at once, so a missing, unreadable or non-PEM file is refused
/// with its line (exit 78) before anything runs; the system's bundle is read when first needed.
enum NetworkSetup {
    static func load(_ configuration: VigilConfiguration, file: String) throws -> CertificateAuthorities {
        guard let caFile = configuration.network.caFile else { return CertificateAuthorities(path: nil) }
        let path = VigilConfiguration.Web.path(caFile, relativeTo: file)
        switch CertificateAuthorities.read(path) {
        case let .success(context):
            return CertificateAuthorities(path: path, context: context)
        case let .failure(unavailable):
            let line = configuration.network.caFilePosition.map { ":\($0.line)" } ?? ""
            StandardError.write("\(file)\(line): [network] ca-file \(TOML.quoted(path)): \(unavailable)")
            throw ExitCode(ConfigurationFault.exitCode)
        }
    }

    /// What `vigil config check` says about the authorities: the explicit file's count (it was
    /// read), or the system's bundle by name (read only when an exchange needs it).
    static func summary(_ authorities: CertificateAuthorities) -> String {
        guard !authorities.isSystemBundle else { return "the system's (\(authorities.path))" }
        switch authorities.context() {
        case let .success(context): return "\(authorities.path) (\(context.authorityCount))"
        case let .failure(unavailable): return unavailable.description
        }
    }
}
