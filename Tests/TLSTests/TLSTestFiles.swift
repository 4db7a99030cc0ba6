import Foundation

/// Certificates and keys made at test time with `openssl req` (none is kept in the repository),
/// and a Python client using its `ssl` module: an independent TLS implementation's view.
struct TLSTestFiles {
    let directory: URL
    var certificate: URL { directory.appendingPathComponent("cert.pem") }
    var key: URL { directory.appendingPathComponent("key.pem") }
    var otherKey: URL { directory.appendingPathComponent("other-key.pem") }

    var certificatePEM: [UInt8] { get throws { try Array(Data(contentsOf: certificate)) } }
    var keyPEM: [UInt8] { get throws { try Array(Data(contentsOf: key)) } }

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("vigil-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                          "-keyout", key.path, "-out", certificate.path, "-days", "2", "-subj", "/CN=localhost",
                          "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"])
        try Self.openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", otherKey.path])
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }

    static func openssl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TLSTestError("openssl \(arguments.prefix(2).joined(separator: " ")) failed") }
    }
}

struct TLSTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
