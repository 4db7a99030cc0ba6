import Foundation

/// A certificate authority made at test time with `openssl` (nothing is kept in the
/// repository), and the certificates it signs: for the client's checks of a chain, a name and
/// a validity period.
struct TestAuthority {
    let directory: URL
    let name: String
    var certificate: URL { directory.appendingPathComponent("\(name)-ca.pem") }
    var key: URL { directory.appendingPathComponent("\(name)-ca-key.pem") }
    var certificatePEM: [UInt8] { get throws { try Array(Data(contentsOf: certificate)) } }

    /// A certificate and its key, as PEM.
    struct Leaf {
        var chainPEM: [UInt8]
        var keyPEM: [UInt8]
    }

    static let authorityExtensions = "basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\n"

    /// A root: self-signed.
    init(in directory: URL, name: String) throws {
        self.directory = directory
        self.name = name
        try TLSTestFiles.openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                  "-keyout", key.path, "-out", certificate.path, "-days", "2", "-subj", "/CN=Vigil test CA \(name)",
                                  "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"])
    }

    /// An intermediate authority that `parent` signs.
    init(intermediateOf parent: TestAuthority, name: String) throws {
        directory = parent.directory
        self.name = name
        let made = try parent.sign("\(name)-ca", extensions: Self.authorityExtensions)
        try Data(made.chainPEM).write(to: certificate)
        try Data(made.keyPEM).write(to: key)
    }

    /// A server certificate for `names` (subjectAltName entries such as "DNS:localhost",
    /// "IP:127.0.0.1") valid from `start` to `end` (openssl's YYYYMMDDHHMMSSZ), or for two days
    /// from now when they are nil.
    func issue(_ leafName: String, names: [String], start: String? = nil, end: String? = nil) throws -> Leaf {
        try sign(leafName, extensions: "subjectAltName=\(names.joined(separator: ","))\nextendedKeyUsage=serverAuth\n", start: start, end: end)
    }

    /// A new key and its certificate with `extensions`, signed with `openssl ca`: the one
    /// command that takes both dates of the validity period.
    private func sign(_ subject: String, extensions: String, start: String? = nil, end: String? = nil) throws -> Leaf {
        let leafKey = directory.appendingPathComponent("\(subject)-key.pem")
        let request = directory.appendingPathComponent("\(subject).csr")
        let leaf = directory.appendingPathComponent("\(subject).pem")
        let extensionsFile = directory.appendingPathComponent("\(subject).ext")
        let database = directory.appendingPathComponent("\(name)-index.txt")
        let configuration = directory.appendingPathComponent("\(name)-ca.cnf")
        if !FileManager.default.fileExists(atPath: database.path) { try Data().write(to: database) }
        try """
        [ca]
        default_ca = test
        [test]
        database = \(database.path)
        new_certs_dir = \(directory.path)
        certificate = \(certificate.path)
        private_key = \(key.path)
        default_md = sha256
        policy = anything
        unique_subject = no
        rand_serial = yes
        [anything]
        commonName = supplied
        """.write(to: configuration, atomically: true, encoding: .utf8)
        try extensions.write(to: extensionsFile, atomically: true, encoding: .utf8)
        try TLSTestFiles.openssl(["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                  "-keyout", leafKey.path, "-out", request.path, "-subj", "/CN=\(subject)"])
        var arguments = ["ca", "-batch", "-notext", "-config", configuration.path, "-in", request.path, "-out", leaf.path,
                         "-extfile", extensionsFile.path]
        if let start, let end { arguments += ["-startdate", start, "-enddate", end] } else { arguments += ["-days", "2"] }
        try TLSTestFiles.openssl(arguments)
        return Leaf(chainPEM: try Array(Data(contentsOf: leaf)), keyPEM: try Array(Data(contentsOf: leafKey)))
    }
}
