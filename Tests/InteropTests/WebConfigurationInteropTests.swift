import Foundation
import Testing

extension Interop {
    /// `vigil web token` and `vigil config check` on a `[web]` section, through the real binary:
    /// the token file it writes is the one `check` accepts, and every way a token, certificate
    /// or key file can be wrong is exit 78 at the line that names it, never echoing the token.
    @Suite struct WebConfigurationInteropTests {
        static func write(_ text: String, to path: String, mode: Int = 0o640) throws {
            try text.write(toFile: path, atomically: false, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        }

        /// `vigil web token --config` on a configuration of `text` in a new directory.
        static func makeToken(configuredAs text: String) throws -> (directory: TemporaryDirectory, config: String, result: ChildProcessResult) {
            let directory = try TemporaryDirectory()
            let config = directory.path + "/vigil.conf"
            try write(text, to: config)
            return (directory, config, try VigilProcess().run(["web", "token", "--config", config]))
        }

        static func mode(_ path: String) throws -> Int {
            try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
        }

        /// The token is printed once, written 0640 with one line, relative to the configuration's
        /// folder; a second run replaces it; `config check` accepts the file it made.
        @Test func tokenIsMadeWhereTheConfigurationSaysAndCheckAcceptsIt() throws {
            let (directory, config, made) = try Self.makeToken(configuredAs: "[web]\nlisten = \"127.0.0.1:8181\"\ntoken-file = \"web-token\"\n")
            #expect(made.exitCode == 0, "\(made.summary)")
            let lines = made.stdoutText.split(separator: "\n").map(String.init)
            #expect(lines.count == 2, "\(made.stdoutText)")
            let token = try #require(lines.first)
            #expect(token.count == 32 && token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }, "\(token)")
            #expect(lines.last?.contains("http://127.0.0.1:8181/?token=\(token)") == true, "\(made.stdoutText)")
            let file = directory.path + "/web-token"
            #expect(try String(contentsOfFile: file, encoding: .utf8) == token + "\n")
            #expect(try Self.mode(file) == 0o640)

            let check = try VigilProcess().run(["config", "check", config])
            #expect(check.exitCode == 0, "\(check.summary)")
            #expect(check.stdoutText.contains("  web: http://127.0.0.1:8181/ (token in \(file))"), "\(check.stdoutText)")
            #expect(!check.stdoutText.contains(token) && !check.stderrText.contains(token))

            let again = try VigilProcess().run(["web", "token", "--file", file])
            #expect(again.exitCode == 0, "\(again.summary)")
            let second = try #require(again.stdoutText.split(separator: "\n").first.map(String.init))
            #expect(second != token && second.count == 32)
            #expect(try String(contentsOfFile: file, encoding: .utf8) == second + "\n")
            #expect(again.stdoutText.contains("http://<this machine's address>:8080/?token="), "\(again.stdoutText)")
        }

        @Test func aFolderThatCannotBeWrittenIsExit1() throws {
            let result = try VigilProcess().run(["web", "token", "--file", "/nonexistent-dir/web-token"])
            #expect(result.exitCode == 1, "\(result.summary)")
            #expect(result.stdoutText.isEmpty)
            #expect(result.stderrText.contains("/nonexistent-dir"), "\(result.stderrText)")
        }

        @Test func aBrokenConfigurationIsExit78AndWritesNothing() throws {
            let (directory, _, result) = try Self.makeToken(configuredAs: "[web]\nlisten = \"0.0.0.0:99999\"\ntoken-file = \"web-token\"\n")
            #expect(result.exitCode == 78, "\(result.summary)")
            #expect(!FileManager.default.fileExists(atPath: directory.path + "/web-token"))
            #expect(result.stderrText.contains("vigil.conf:2:10: invalid \"listen\" in [web]"), "\(result.stderrText)")
            #expect(result.stdoutText.isEmpty)
        }

        /// Each bad token file is refused by `check` at the `token-file` line, and the token
        /// itself never appears in what it says.
        @Test func everyBadTokenFileIsExit78AtItsLine() throws {
            let directory = try TemporaryDirectory()
            let config = directory.path + "/vigil.conf"
            let token = directory.path + "/token"
            try Self.write("[log]\nlevel = \"info\"\n[web]\ntoken-file = \"\(token)\"\n", to: config)
            let secret = "SuperSecretToken1234"
            for (contents, mode, expected) in [
                (nil, 0o640, "No such file or directory"),
                ("", 0o640, "the token file is empty"),
                ("\(secret)\n", 0o644, "readable by every user (mode 644)"),
                ("short\n", 0o600, "the token has 5 characters"),
                ("\(secret)\n\(secret)\n", 0o600, "one line"),
                ("\(secret) x\n", 0o600, "column 21"),
                ("\(secret)\n", 0o000, "Permission denied"),
            ] as [(String?, Int, String)] {
                try? FileManager.default.removeItem(atPath: token)
                if let contents { try Self.write(contents, to: token, mode: mode) }
                if mode == 0o000, getuid() == 0 { continue }  // root reads any file
                let result = try VigilProcess().run(["config", "check", config])
                #expect(result.exitCode == 78, "\(expected): \(result.summary)")
                #expect(result.stderrText.hasPrefix("\(config):4: [web] token-file \"\(token)\": "), "\(result.stderrText)")
                #expect(result.stderrText.contains(expected), "\(expected): \(result.stderrText)")
                #expect(!result.stderrText.contains("Secret"), "\(result.stderrText)")
            }
        }

        /// A certificate whose key is another's, a key missing, a certificate that is not PEM.
        @Test func badCertificatesAndKeysAreExit78AtTheirLines() throws {
            let directory = try TemporaryDirectory()
            let path = directory.path
            try Self.write("abcdefghijklmnopqrstuvwxyz\n", to: path + "/token", mode: 0o600)
            for arguments in [
                ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", path + "/key.pem",
                 "-out", path + "/cert.pem", "-days", "1", "-subj", "/CN=vigil.test"],
                ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-out", path + "/other.pem"],
            ] {
                let openssl = try ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/openssl"), arguments: arguments, timeout: .seconds(30))
                #expect(openssl.exitCode == 0, "\(openssl.summary)")
            }
            try Self.write("not a certificate\n", to: path + "/bad.pem")
            let config = path + "/vigil.conf"
            for (certificate, key, expected) in [
                ("cert.pem", "other.pem", ":3: [web] certificate \"\(path)/cert.pem\" and key \"\(path)/other.pem\": the private key does not belong to the certificate"),
                ("cert.pem", "missing.pem", ":4: [web] key \"\(path)/missing.pem\": "),
                ("bad.pem", "key.pem", ":3: [web] certificate \"\(path)/bad.pem\" and key \"\(path)/key.pem\": no PEM certificate"),
                ("cert.pem", "key.pem", nil),
            ] as [(String, String, String?)] {
                try Self.write("[web]\ntoken-file = \"token\"\ncertificate = \"\(certificate)\"\nkey = \"\(key)\"\n", to: config)
                let result = try VigilProcess().run(["config", "check", config])
                if let expected {
                    #expect(result.exitCode == 78, "\(result.summary)")
                    #expect(result.stderrText.contains(config + expected), "\(result.stderrText)")
                } else {
                    #expect(result.exitCode == 0, "\(result.summary)")
                    #expect(result.stdoutText.contains("  web: https://0.0.0.0:8080/"), "\(result.stdoutText)")
                }
            }
        }
    }
}
