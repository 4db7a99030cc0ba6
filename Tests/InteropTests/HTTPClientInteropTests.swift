import Foundation
import Testing

extension Interop {
    /// The network stack end to end, once per behaviour, through `vigil fetch` (the client,
    /// runner, TLS and CA settings `vigil run` uses; docs/http-client.md). The servers are
    /// Python's `socket` and `ssl` on loopback, with a test CA and certificates made now by
    /// `openssl`; `--connect-to` makes `vigil.test` land on them while TLS checks that name.
    @Suite struct HTTPClientInteropTests {
        /// The Python servers of one test, each on a port of its own, and their files. The
        /// script exits when its stdin closes, so a test process that dies leaves none behind.
        final class Servers {
            let directory: TemporaryDirectory
            let process = Process()
            private let stdin = Pipe()
            let ports: [String: Int]
            var config: String { directory.path + "/vigil.conf" }

            init() throws {
                directory = try TemporaryDirectory()
                process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
                process.arguments = ["-c", Self.script, directory.path]
                let stdout = Pipe()
                process.standardOutput = stdout
                process.standardInput = stdin
                try process.run()
                // The first line: the ports, once every certificate is made and every socket listens.
                var line = Data()
                while !line.contains(UInt8(ascii: "\n")) {
                    let chunk = stdout.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    line += chunk
                }
                ports = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Int], "\(String(decoding: line, as: UTF8.self))")
                try "[network]\nca-file = \"ca.pem\"\n".write(toFile: config, atomically: true, encoding: .utf8)
            }

            deinit {
                try? stdin.fileHandleForWriting.close()
                process.waitUntilExit()
            }

            func port(_ mode: String) -> Int { ports[mode] ?? 0 }

            /// `vigil fetch` of `https://vigil.test:PORT/path` sent to the server of `mode`.
            func fetch(_ mode: String, path: String = "/api/v1/status.json", scheme: String = "https", host: String = "vigil.test",
                       extra: [String] = []) throws -> ChildProcessResult {
                let port = port(mode)
                return try VigilProcess().run(["fetch", "\(scheme)://\(host):\(port)\(path)", "--config", config,
                                               "--connect-to", "\(host):\(port):127.0.0.1:\(port)"] + extra, timeout: .seconds(60))
            }

            /// Makes a CA, a certificate it signs for vigil.test and 127.0.0.1, and one a
            /// stranger CA signs; serves each mode on its own port; prints the ports.
            static let script = #"""
                import json, os, socket, ssl, subprocess, sys, threading
                directory = sys.argv[1]
                def path(name): return os.path.join(directory, name)
                def openssl(*args): subprocess.run(["openssl", *args], check=True, capture_output=True)
                def authority(name):
                    openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                            "-keyout", path(name + "-key.pem"), "-out", path(name + ".pem"), "-days", "1",
                            "-subj", "/CN=Vigil interop " + name, "-addext", "basicConstraints=critical,CA:TRUE",
                            "-addext", "keyUsage=critical,keyCertSign")
                def leaf(name, ca):
                    openssl("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                            "-keyout", path(name + "-key.pem"), "-out", path(name + ".csr"), "-subj", "/CN=vigil.test")
                    with open(path(name + ".ext"), "w") as f:
                        f.write("subjectAltName=DNS:vigil.test,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
                    openssl("x509", "-req", "-in", path(name + ".csr"), "-CA", path(ca + ".pem"), "-CAkey", path(ca + "-key.pem"),
                            "-CAcreateserial", "-out", path(name + ".pem"), "-days", "1", "-extfile", path(name + ".ext"))
                authority("ca"); authority("stranger"); leaf("server", "ca"); leaf("impostor", "stranger")
                def context(name):
                    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                    ctx.load_cert_chain(path(name + ".pem"), path(name + "-key.pem"))
                    def remember(tls, server_name, _): tls.vigil_sni = server_name
                    ctx.sni_callback = remember
                    return ctx
                trusted, impostor = context("server"), context("impostor")
                def read_head(s):
                    data = b""
                    while b"\r\n\r\n" not in data:
                        chunk = s.recv(4096)
                        if not chunk: break
                        data += chunk
                    return data.decode("latin-1")
                def described(s, head):
                    lines = head.split("\r\n")
                    fields = {l.split(":", 1)[0].lower(): l.split(":", 1)[1].strip() for l in lines[1:] if ":" in l}
                    return json.dumps({"request": lines[0], "host": fields.get("host"), "user_agent": fields.get("user-agent"),
                                       "connection": fields.get("connection"), "x_test": fields.get("x-test"),
                                       "sni": getattr(s, "vigil_sni", None)}).encode()
                def handle(conn, mode):
                    try:
                        if mode == "silent":
                            read_head(conn)
                            while conn.recv(4096): pass   # says nothing until the client goes
                            return
                        s = conn if mode == "plain-error" else (impostor if mode == "impostor" else trusted).wrap_socket(conn, server_side=True)
                        body = described(s, read_head(s))
                        if mode == "ok":
                            s.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
                        elif mode == "chunked":
                            s.sendall(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                            for i in range(0, len(body), 7):
                                piece = body[i:i + 7]
                                s.sendall(b"%x;n=%d\r\n" % (len(piece), i) + piece + b"\r\n")
                            s.sendall(b"0\r\nX-Trailer: done\r\n\r\n")
                        elif mode in ("error", "plain-error"):
                            s.sendall(b"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 60\r\n\r\nthe site is asleep\n")
                        s.close()
                    except (OSError, ssl.SSLError) as error:
                        sys.stderr.write("%s: %s\n" % (mode, error))
                    finally:
                        conn.close()
                def serve(listener, mode):
                    while True:
                        conn, _ = listener.accept()
                        threading.Thread(target=handle, args=(conn, mode), daemon=True).start()
                ports = {}
                for mode in ["ok", "chunked", "error", "plain-error", "impostor", "silent"]:
                    listener = socket.socket()
                    listener.bind(("127.0.0.1", 0))
                    listener.listen(16)
                    ports[mode] = listener.getsockname()[1]
                    threading.Thread(target=serve, args=(listener, mode), daemon=True).start()
                print(json.dumps(ports), flush=True)
                sys.stdin.read()
                os._exit(0)
                """#
        }

        static func answer(_ result: ChildProcessResult) throws -> (status: String, body: [String: Any]) {
            let text = result.stdoutText
            let newline = try #require(text.firstIndex(of: "\n"), "\(result.summary)")
            let body = try #require(try JSONSerialization.jsonObject(with: Data(text[text.index(after: newline)...].utf8)) as? [String: Any],
                                    "\(result.summary)")
            return (String(text[..<newline]), body)
        }

        /// SNI and the certificate check take the URL's host, not the address connected to;
        /// Host carries the port; the request says who sends it and closes the connection.
        @Test func aGoodServerIsReachedByNameOverTLS() throws {
            let servers = try Servers()
            let result = try servers.fetch("ok", extra: ["--header", "X-Test: yes"])
            #expect(result.exitCode == 0, "\(result.summary)")
            let (status, body) = try Self.answer(result)
            #expect(status == "HTTP 200")
            #expect(body["request"] as? String == "GET /api/v1/status.json HTTP/1.1")
            #expect(body["host"] as? String == "vigil.test:\(servers.port("ok"))")
            #expect(body["sni"] as? String == "vigil.test")
            #expect((body["user_agent"] as? String)?.hasPrefix("Vigil/") == true)
            #expect(body["connection"] as? String == "close")
            #expect(body["x_test"] as? String == "yes")
            #expect(result.stderrText.isEmpty)
        }

        /// An address in the URL is checked against the certificate's IP entry, and no SNI is sent.
        @Test func anAddressIsCheckedAgainstTheCertificate() throws {
            let servers = try Servers()
            let result = try servers.fetch("ok", host: "127.0.0.1")
            #expect(result.exitCode == 0, "\(result.summary)")
            #expect(try Self.answer(result).body["sni"] is NSNull)
        }

        @Test func aChunkedBodyWithExtensionsAndTrailers() throws {
            let servers = try Servers()
            let result = try servers.fetch("chunked", path: "/chunked")
            #expect(result.exitCode == 0, "\(result.summary)")
            let (status, body) = try Self.answer(result)
            #expect(status == "HTTP 200")
            #expect(body["request"] as? String == "GET /chunked HTTP/1.1")
        }

        /// A server error is an answer, passed through whole (the body read to the close).
        @Test func aServerErrorIsPassedThrough() throws {
            let servers = try Servers()
            for (mode, scheme) in [("error", "https"), ("plain-error", "http")] {
                let result = try servers.fetch(mode, scheme: scheme)
                #expect(result.exitCode == 0, "\(result.summary)")
                #expect(result.stdoutText == "HTTP 503\nthe site is asleep\n", "\(result.summary)")
            }
        }

        @Test func aCertificateFromAnUnknownAuthorityIsRefused() throws {
            let servers = try Servers()
            let result = try servers.fetch("impostor")
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("TLS failed: certificate verify failed: unable to get local issuer certificate"), "\(result.summary)")
            #expect(result.stdoutText.isEmpty)
        }

        /// Without `--config` the system's authorities are used, and they do not know the test CA.
        @Test func theSystemsAuthoritiesDoNotKnowTheTestCA() throws {
            let servers = try Servers()
            let port = servers.port("ok")
            let result = try VigilProcess().run(["fetch", "https://vigil.test:\(port)/", "--connect-to", "vigil.test:\(port):127.0.0.1:\(port)"])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("TLS failed:"), "\(result.summary)")
        }

        /// `--connect-to` moves the connection, never the name checked: a certificate for
        /// vigil.test does not pass for other.test.
        @Test func aWrongHostNameIsRefused() throws {
            let servers = try Servers()
            let result = try servers.fetch("ok", host: "other.test")
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("TLS failed: certificate verify failed: hostname mismatch"), "\(result.summary)")
        }

        @Test func aRefusedConnectionFails() throws {
            let servers = try Servers()
            let port = try WebServerInteropTests.Setup.freePort()
            let result = try VigilProcess().run(["fetch", "https://vigil.test:\(port)/", "--config", servers.config,
                                                 "--connect-to", "vigil.test:\(port):127.0.0.1:\(port)"])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("could not connect: Connection refused (127.0.0.1:\(port))"), "\(result.summary)")
        }

        /// `.invalid` never resolves (RFC 6761 §6.4).
        @Test func aNameThatDoesNotResolveFails() throws {
            let result = try VigilProcess().run(["fetch", "https://no-such-host.invalid/"])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("the name could not be resolved: no-such-host.invalid: "), "\(result.summary)")
        }

        /// A server that takes the request and says nothing ends in the wait's time-out
        /// (shortened for the test; each phase's own is tested on the virtual clock).
        @Test func aSilentServerTimesOut() throws {
            let servers = try Servers()
            let result = try servers.fetch("silent", scheme: "http", extra: ["--time-out-for-tests", "1"])
            #expect(result.exitCode == 1)
            #expect(result.stderrText.contains("timed out waiting for the response"), "\(result.summary)")
        }

        @Test func aMissingOrNonPEMCAFileIsAConfigurationError() throws {
            let servers = try Servers()
            for (contents, problem) in [(nil, "No such file"), ("not a certificate\n", "no PEM certificate")] {
                let bundle = servers.directory.path + "/bundle.pem"
                try? FileManager.default.removeItem(atPath: bundle)
                if let contents { try contents.write(toFile: bundle, atomically: true, encoding: .utf8) }
                try "[network]\nca-file = \"bundle.pem\"\n".write(toFile: servers.config, atomically: true, encoding: .utf8)
                for command in [["config", "check", servers.config], ["fetch", "https://vigil.test/", "--config", servers.config]] {
                    let result = try VigilProcess().run(command)
                    #expect(result.exitCode == 78, "\(command): \(result.summary)")
                    #expect(result.stderrText.contains("vigil.conf:2: [network] ca-file \"\(bundle)\""), "\(result.summary)")
                    #expect(result.stderrText.contains(problem), "\(result.summary)")
                }
            }
        }
    }
}
