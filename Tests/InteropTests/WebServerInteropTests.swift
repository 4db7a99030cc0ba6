import Foundation
import Platform
import Testing

extension Interop {
    /// `vigil run` serving the page over real sockets (docs/web.md, docs/http.md "Driving it
    /// from the poll loop"). The clients are Python's `socket` and `ssl`, an implementation
    /// other than ours. Vigil runs with no controller (nothing at `--hci`), so `/health` says
    /// the no-controller fault: the page is served whatever the radio does.
    @Suite struct WebServerInteropTests {
        /// A directory with a configuration serving on `port`, its token, and (for HTTPS) a
        /// certificate made now with `openssl req`.
        struct Setup {
            let directory: TemporaryDirectory
            let port: UInt16
            var config: String { directory.path + "/vigil.conf" }

            init(port: UInt16? = nil, https: Bool = false) throws {
                directory = try TemporaryDirectory()
                self.port = try port ?? Self.freePort()
                var text = "[web]\nlisten = \"127.0.0.1:\(self.port)\"\ntoken-file = \"token\"\n"
                if https {
                    let openssl = try ChildProcess.run(
                        executable: URL(fileURLWithPath: "/usr/bin/openssl"),
                        arguments: ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                                    "-keyout", directory.path + "/key.pem", "-out", directory.path + "/cert.pem", "-days", "1",
                                    "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
                        timeout: .seconds(30))
                    #expect(openssl.exitCode == 0, "\(openssl.summary)")
                    text += "certificate = \"cert.pem\"\nkey = \"key.pem\"\n"
                }
                text += "[face]\nbackend = \"none\"\n"
                try text.write(toFile: config, atomically: true, encoding: .utf8)
                let token = try VigilProcess().run(["web", "token", "--config", config])
                #expect(token.exitCode == 0, "\(token.summary)")
            }

            /// A port nothing listens on now (the kernel's pick, let go at once).
            static func freePort() throws -> UInt16 {
                let probe = try TCPListener.listen()
                defer { probe.close() }
                return probe.port
            }

            func run(extra: [String] = []) throws -> BackgroundVigil {
                try BackgroundVigil(["run", "--config", config, "--hci", "tcp:127.0.0.1:1", "--state-dir", directory.path + "/state",
                                     "--status-socket", directory.path + "/status.sock", "--seconds", "120"] + extra)
            }

            /// Runs `script` (Python, given the port and the directory) and returns its JSON.
            func client(_ script: String) throws -> [String: Any] {
                let result = try ChildProcess.run(executable: URL(fileURLWithPath: "/usr/bin/python3"),
                                                  arguments: ["-c", WebServerInteropTests.prelude + script, String(port), directory.path],
                                                  timeout: .seconds(90))
                #expect(result.exitCode == 0, "\(result.summary)")
                return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stdoutText)")
            }
        }

        /// What every client script starts with: a request over a fresh connection, read to the end.
        static let prelude = """
            import json, select, socket, ssl, sys, time
            port, directory = int(sys.argv[1]), sys.argv[2]
            def connect():
                return socket.create_connection(("127.0.0.1", port), timeout=15)
            def read_all(s):
                data = b""
                while True:
                    try:
                        chunk = s.recv(65536)
                    except (ConnectionResetError, socket.timeout):
                        break
                    if not chunk: break
                    data += chunk
                return data
            def get(path, wrap=lambda s: s):
                s = wrap(connect())
                s.sendall(b"GET " + path.encode() + b" HTTP/1.1\\r\\nHost: test\\r\\nConnection: close\\r\\n\\r\\n")
                data = read_all(s)
                s.close()
                head, _, body = data.partition(b"\\r\\n\\r\\n")
                return head.split(b"\\r\\n")[0].decode(), body.decode()

            """

        /// One run: `/health` answers; with 32 connections held the 33rd to 40th are answered
        /// 503; a client sending its request a byte at a time is cut off (408) while another
        /// is served meanwhile.
        @Test func healthCapacityAndSlowClients() throws {
            let setup = try Setup()
            let vigil = try setup.run()
            defer { vigil.stop() }
            #expect(vigil.waitForLog("web: serving http://127.0.0.1:\(setup.port)/"), "\(vigil.summary)")
            let result = try setup.client("""
                out = {}
                out["health"] = get("/health")
                held = []
                for i in range(32):
                    s = connect(); s.sendall(b"GET /health HTTP/1.1\\r\\n"); held.append(s)
                refused = []
                for i in range(8):
                    s = connect(); refused.append(read_all(s).split(b"\\r\\n\\r\\n"))
                    s.close()
                out["beyond"] = [[r[0].split(b"\\r\\n")[0].decode(), r[1].decode() if len(r) > 1 else ""] for r in refused]
                for s in held: s.close()
                # Room again once Vigil has read the 32 ends: wait for that, bounded.
                deadline = time.monotonic() + 10
                while "too many connections" in get("/health")[1] and time.monotonic() < deadline: pass
                slow = connect(); slow.sendall(b"GET /health HTTP/1.1\\r\\nHost: t")
                started = time.monotonic(); served = None; cut = None
                while time.monotonic() - started < 30:
                    if served is None and time.monotonic() - started > 1:
                        t = time.monotonic(); line, body = get("/health"); served = [line, body, time.monotonic() - t]
                    readable, _, _ = select.select([slow], [], [], 0.5)
                    if readable:
                        cut = [read_all(slow).split(b"\\r\\n")[0].decode(), time.monotonic() - started]; break
                    try: slow.sendall(b"x")
                    except OSError as error: cut = ["send failed: " + str(error), time.monotonic() - started]; break
                out["served"] = served; out["cut"] = cut
                print(json.dumps(out))
                """)
            let health = try #require(result["health"] as? [String])
            #expect(health == ["HTTP/1.1 503 Service Unavailable", #"{"status":"fault","faults":["fault:no-controller"]}"#])
            let beyond = try #require(result["beyond"] as? [[String]])
            #expect(beyond.count == 8)
            for answer in beyond {
                #expect(answer.first == "HTTP/1.1 503 Service Unavailable", "\(beyond)")
                #expect(answer.last?.contains("too many connections") == true, "\(beyond)")
            }
            let served = try #require(result["served"] as? [Any], "\(result)")
            #expect(served.first as? String == "HTTP/1.1 503 Service Unavailable" && (served[1] as? String)?.contains("no-controller") == true,
                    "\(served)")
            #expect((served[2] as? Double).map { $0 < 2 } == true, "the second client waited \(served[2]) s")
            let cut = try #require(result["cut"] as? [Any])
            #expect(cut.first as? String == "HTTP/1.1 408 Request Timeout", "\(cut)")
            #expect((cut[1] as? Double).map { (9...13).contains($0) } == true, "cut after \(cut[1]) s")
            #expect(vigil.process.isRunning, "\(vigil.summary)")
        }

        /// Another program on the port: an error line, and the appliance runs on without the
        /// page; `vigil status` says why it is not served.
        @Test func aPortInUseIsLoggedAndTheApplianceRunsOn() throws {
            let squatter = try TCPListener.listen()
            defer { squatter.close() }
            let setup = try Setup(port: squatter.port)
            let vigil = try setup.run()
            defer { vigil.stop() }
            #expect(vigil.waitForLog("running without the page"), "\(vigil.summary)")
            #expect(vigil.stderrText.contains("another program already listens on 127.0.0.1:\(squatter.port)"), "\(vigil.summary)")
            // The loop turns: the status socket answers, and says the page is not served.
            var status: ChildProcessResult?
            #expect(vigil.wait(upTo: .seconds(10)) {
                status = try? VigilProcess().run(["status", "--socket", setup.directory.path + "/status.sock"], timeout: .seconds(5))
                return status?.exitCode == 0
            }, "\(vigil.summary)")
            #expect(status?.stdoutText.contains("web: not served: listen(127.0.0.1:\(squatter.port))") == true, "\(status?.stdoutText ?? "")")
            #expect(vigil.process.isRunning)
        }

        /// HTTPS: `/health` over TLS 1.2 and 1.3 with the certificate checked; a client that
        /// starts a handshake and stops is closed at the handshake deadline; plain HTTP on the
        /// TLS port is closed. `vigil status` gives the https address.
        @Test func httpsServesAndEndsStalledHandshakes() throws {
            let setup = try Setup(https: true)
            let vigil = try setup.run()
            defer { vigil.stop() }
            #expect(vigil.waitForLog("web: serving https://127.0.0.1:\(setup.port)/ (certificate: subject CN = localhost"), "\(vigil.summary)")
            let result = try setup.client("""
                out = {}
                for version in ["TLSv1_2", "TLSv1_3"]:
                    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
                    context.load_verify_locations(directory + "/cert.pem")
                    context.minimum_version = context.maximum_version = getattr(ssl.TLSVersion, version)
                    out[version] = get("/health", lambda s: context.wrap_socket(s, server_hostname="localhost"))
                stalled = connect(); stalled.sendall(bytes([0x16, 0x03, 0x01, 0x00, 0x80, 0x01]))
                started = time.monotonic()
                select.select([stalled], [], [], 20)
                read_all(stalled)
                out["stalled"] = time.monotonic() - started
                plain = get("/health")
                out["plain"] = plain[0]
                print(json.dumps(out))
                """)
            for version in ["TLSv1_2", "TLSv1_3"] {
                let answer = try #require(result[version] as? [String], "\(result)")
                #expect(answer.first == "HTTP/1.1 503 Service Unavailable" && answer.last?.contains("no-controller") == true, "\(answer)")
            }
            let stalled = try #require(result["stalled"] as? Double, "\(result)")
            #expect((9...13).contains(stalled), "closed after \(stalled) s")
            #expect(vigil.stderrText.contains("did not finish its TLS handshake within 10"), "\(vigil.summary)")
            #expect(result["plain"] as? String == "", "\(result)")
            #expect(vigil.stderrText.contains("TLS: http request; closed"), "\(vigil.summary)")
            let status = try VigilProcess().run(["status", "--socket", setup.directory.path + "/status.sock"], timeout: .seconds(10))
            #expect(status.stdoutText.contains("web: serving https://127.0.0.1:\(setup.port)/"), "\(status.summary)")
        }
    }
}
