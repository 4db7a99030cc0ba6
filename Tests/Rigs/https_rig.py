"""What the network rigs (`nightscout_server.py`, `follow_server.py`) share: an HTTP/1.1 server
over TLS on loopback with the test CA's certificates (`test_ca.py`), the faults a client must
survive, switchable while it runs, and the rigs' process model.

Process model (like the Bumble rigs): `--port 0` picks a port; stdout carries one
`{"rig":...}` line (port, control port, CA file, ...), then `READY <port>`, then one JSON line
per event; the rig exits on stdin EOF or SIGTERM. Commands (JSON objects, one a line) arrive
on stdin or as `POST /control` on the plain-HTTP control port (127.0.0.1, printed as
`control`); each is acknowledged with `{"event":"control","id":...,"command":...}` on stdout
(and as the control port's answer) once it has taken effect, so a test waits for the
acknowledgement, never a fixed time.

Faults (`{"fault": MODE, ...}`), each until the next `{"fault":...}` (or for the next
`"times": N` connections, then back to normal):

| mode | what a client sees |
|---|---|
| `normal` | the service |
| `refuse` | the listening socket is closed: connection refused (reopened on the same port by the next fault) |
| `silent` | the connection is accepted and nothing is ever sent, not even TLS's ServerHello |
| `no-answer` | TLS completes and the request is read; no response |
| `hang-up` | TLS completes, the request is read, the connection is closed without a response |
| `lost-answer` | the service handles the request (an upload is stored), then the connection is closed without its answer |
| `status` | every request answered with `"status": N` (the service's own body for 401, see each rig) |
| `slow` | the answer comes `"seconds": S` late |
| `wrong-cert` | the certificate chains to another root (same subject name): unknown issuer |
| `wrong-name` | the test root's certificate for another host name |
| `expired` | the test root's certificate for the right names, expired |

`--plain` serves HTTP instead of HTTPS (for a client given an http://127.0.0.1 URL).
"""

from __future__ import annotations

import argparse
import json
import os
import select
import signal
import socket
import ssl
import sys
import tempfile
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable

import test_ca

MAX_HEADER_BYTES = 64 * 1024
MAX_BODY_BYTES = 8 * 1024 * 1024
FAULTS = ("normal", "refuse", "silent", "no-answer", "hang-up", "lost-answer", "status", "slow",
          "wrong-cert", "wrong-name", "expired")


def now_ms() -> int:
    return int(time.time() * 1000)


@dataclass
class Request:
    method: str
    target: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]  # names in lower case; a repeated header keeps its last value
    body: bytes
    sni: str | None
    peer: str

    @property
    def host(self) -> str:
        """The Host header without its port, lower case."""
        host = self.headers.get("host", "")
        if host.startswith("["):
            return host.split("]")[0] + "]"
        return host.rsplit(":", 1)[0].lower() if ":" in host else host.lower()

    def first(self, name: str) -> str | None:
        values = self.query.get(name)
        return values[0] if values else None

    def json(self):  # noqa: ANN201 (any JSON value)
        return json.loads(self.body.decode("utf-8"))


@dataclass
class Response:
    status: int
    body: bytes = b""
    content_type: str = "application/json; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)

    @staticmethod
    def json(status: int, value) -> "Response":  # noqa: ANN001
        return Response(status, json.dumps(value, separators=(",", ":")).encode())

    @staticmethod
    def text(status: int, text: str, content_type: str = "text/plain; charset=utf-8") -> "Response":
        return Response(status, text.encode(), content_type)


REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
           405: "Method Not Allowed", 411: "Length Required", 413: "Payload Too Large",
           421: "Misdirected Request", 500: "Internal Server Error", 502: "Bad Gateway",
           503: "Service Unavailable", 504: "Gateway Timeout"}


class Output:
    """stdout (the rig's event log) and the optional record file, one JSON object a line."""

    def __init__(self, record_path: str | None) -> None:
        self.lock = threading.Lock()
        self.record = open(record_path, "a", buffering=1) if record_path else None

    def emit(self, **fields: object) -> None:
        line = json.dumps(fields, separators=(",", ":"))
        with self.lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def emit_record(self, **fields: object) -> None:
        """A line for the record file (and stdout): what the service accepted."""
        line = json.dumps(fields, separators=(",", ":"))
        with self.lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()
            if self.record:
                self.record.write(line + "\n")


class FaultState:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.mode = "normal"
        self.status = 503
        self.seconds = 0.0
        self.remaining: int | None = None
        self.released = threading.Event()  # set whenever the fault changes: held connections re-check

    def set(self, mode: str, status: int, seconds: float, times: int | None) -> None:
        with self.lock:
            self.mode, self.status, self.seconds, self.remaining = mode, status, seconds, times
            old = self.released
            self.released = threading.Event()
        old.set()

    def take(self) -> tuple[str, int, float, threading.Event]:
        """The fault for a new connection (counting it against `times`)."""
        with self.lock:
            current = (self.mode, self.status, self.seconds, self.released)
            if self.remaining is not None and self.mode != "normal":
                self.remaining -= 1
                if self.remaining <= 0:
                    self.mode, self.remaining = "normal", None
            return current


class HttpsRig:
    """The listening side and the connection threads; `handle(request) -> Response` is the
    service (given by the rig), `control(command) -> dict` its own commands."""

    def __init__(self, name: str, args: argparse.Namespace, names: list[str],
                 handle: Callable[[Request], Response], control: Callable[[dict], dict | None],
                 info: dict, fault_body: Callable[[Request, int], Response] | None = None) -> None:
        self.name = name
        self.fault_body = fault_body
        self.args = args
        self.handle = handle
        self.rig_control = control
        self.out = Output(args.record)
        self.fault = FaultState()
        self.stopping = threading.Event()
        self.listen_lock = threading.Lock()
        self.listener: socket.socket | None = None
        self.connections = 0
        self.command_count = 0
        self.tls_dir = args.tls_dir or tempfile.mkdtemp(prefix=f"vigil-{name}-tls-")
        self.paths = test_ca.make(self.tls_dir, names)
        self.contexts = {kind: self._context(kind) for kind in ("server", "wrong-name", "expired", "impostor")}
        self.port = self._listen(args.port)
        self.control_server = self._control_server()
        self.info = {"rig": name, "port": self.port, "control": self.control_server.server_address[1],
                     "tls": not args.plain, "ca": self.paths["ca"], "tlsDir": self.tls_dir,
                     "names": names, "record": args.record, **info}

    # --- listening ---------------------------------------------------------------------------

    def _context(self, kind: str) -> ssl.SSLContext:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.load_cert_chain(self.paths[kind], self.paths[f"{kind}-key"])
        context.sni_callback = self._sni
        return context

    @staticmethod
    def _sni(connection: ssl.SSLObject, server_name: str | None, _context: ssl.SSLContext) -> None:
        connection.vigil_sni = server_name  # read back by the connection's thread
        return None

    def _listen(self, port: int) -> int:
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", port))
        listener.listen(64)
        with self.listen_lock:
            self.listener = listener
        threading.Thread(target=self._accept_loop, args=(listener,), daemon=True).start()
        return listener.getsockname()[1]

    def _close_listener(self) -> None:
        with self.listen_lock:
            listener, self.listener = self.listener, None
        if listener:
            try:
                listener.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            listener.close()

    def _accept_loop(self, listener: socket.socket) -> None:
        while not self.stopping.is_set():
            try:
                connection, address = listener.accept()
            except OSError:
                return  # closed: `refuse`, or the rig stops
            self.connections += 1
            threading.Thread(target=self._serve, args=(connection, f"{address[0]}:{address[1]}"),
                             daemon=True).start()

    # --- one connection ----------------------------------------------------------------------

    def _serve(self, raw: socket.socket, peer: str) -> None:
        mode, status, seconds, released = self.fault.take()
        self.out.emit(event="connection", peer=peer, fault=mode)
        try:
            if mode == "silent":
                self._hold(raw, released, peer)
                return
            connection: socket.socket = raw
            sni = None
            if not self.args.plain:
                kind = {"wrong-cert": "impostor", "wrong-name": "wrong-name", "expired": "expired"}.get(mode, "server")
                raw.settimeout(10)
                try:
                    connection = self.contexts[kind].wrap_socket(raw, server_side=True)
                except (ssl.SSLError, OSError) as error:
                    self.out.emit(event="tls-failed", peer=peer, fault=mode, error=str(error))
                    return
                sni = getattr(connection, "vigil_sni", None)
                self.out.emit(event="tls", peer=peer, sni=sni, version=connection.version())
            connection.settimeout(30)
            reader = connection.makefile("rb")
            while not self.stopping.is_set():
                request = self._read_request(reader, connection, sni, peer)
                if request is None:
                    return
                if mode in ("no-answer", "hang-up"):
                    self.out.emit(event="request-unanswered", peer=peer, fault=mode,
                                  request=f"{request.method} {request.path}")
                    if mode == "no-answer":
                        self._hold(connection, released, peer)
                    return
                if mode == "lost-answer":
                    response = self._answer(request)
                    self.out.emit(event="answer-lost", peer=peer, request=f"{request.method} {request.path}",
                                  status=response.status)
                    return
                if mode == "slow":
                    released.wait(seconds)  # the fault's own delay; a change of fault ends it early
                if mode == "status":
                    response = self.fault_response(request, status)
                else:
                    response = self._answer(request)
                self._send(connection, request, response)
                if request.headers.get("connection", "").lower() == "close":
                    return
        except (OSError, ValueError) as error:
            self.out.emit(event="connection-error", peer=peer, error=str(error))
        finally:
            try:
                raw.close()
            except OSError:
                pass

    def _hold(self, connection: socket.socket, released: threading.Event, peer: str) -> None:
        """Keeps a connection open and silent until the client closes it (printed as
        `{"event":"held-closed-by-client"}`: the client's time-out fired), the fault changes, or
        the rig stops."""
        connection.setblocking(False)
        held_since = time.monotonic()
        while not self.stopping.is_set() and not released.is_set():
            readable, _, _ = select.select([connection], [], [], 0.2)
            if readable:
                try:
                    if connection.recv(65536):
                        continue
                except (BlockingIOError, ssl.SSLWantReadError):
                    continue
                except OSError:
                    pass
                self.out.emit(event="held-closed-by-client", peer=peer,
                              seconds=round(time.monotonic() - held_since, 3))
                return
        self.out.emit(event="held-released", peer=peer, seconds=round(time.monotonic() - held_since, 3))

    def _read_request(self, reader, connection: socket.socket, sni: str | None, peer: str) -> Request | None:  # noqa: ANN001
        line = reader.readline(MAX_HEADER_BYTES)
        if not line:
            return None
        try:
            method, target, version = line.decode("latin-1").rstrip("\r\n").split(" ")
        except ValueError:
            self._send_raw(connection, Response.text(400, "malformed request line"))
            return None
        headers: dict[str, str] = {}
        total = len(line)
        while True:
            header = reader.readline(MAX_HEADER_BYTES)
            total += len(header)
            if total > MAX_HEADER_BYTES:
                self._send_raw(connection, Response.text(431, "headers too large"))
                return None
            if header in (b"\r\n", b"\n", b""):
                break
            name, _, value = header.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        body = b""
        if headers.get("transfer-encoding", "").lower() == "chunked":
            while True:
                size = int(reader.readline(1024).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    reader.readline(1024)
                    break
                body += reader.read(size)
                reader.readline(16)
                if len(body) > MAX_BODY_BYTES:
                    self._send_raw(connection, Response.text(413, "body too large"))
                    return None
        elif "content-length" in headers:
            length = int(headers["content-length"])
            if length > MAX_BODY_BYTES:
                self._send_raw(connection, Response.text(413, "body too large"))
                return None
            body = reader.read(length)
        parsed = urllib.parse.urlsplit(target)
        return Request(method=method, target=target, path=parsed.path,
                       query=urllib.parse.parse_qs(parsed.query, keep_blank_values=True),
                       headers=headers, body=body, sni=sni, peer=peer)

    def _answer(self, request: Request) -> Response:
        if not self.args.plain and request.sni and request.host and request.sni.lower() != request.host:
            # A client that connects for one name and asks for another (RFC 9110 §7.4).
            return Response.text(421, f"TLS server name {request.sni} but Host {request.host}")
        try:
            return self.handle(request)
        except (ValueError, KeyError, TypeError, UnicodeDecodeError) as error:
            return Response.text(400, f"bad request: {error}")

    def _send(self, connection: socket.socket, request: Request, response: Response) -> None:
        self._send_raw(connection, response)
        self.out.emit(event="response", method=request.method, target=request.target, host=request.host,
                      sni=request.sni, status=response.status, bytes=len(response.body))

    @staticmethod
    def _send_raw(connection: socket.socket, response: Response) -> None:
        head = [f"HTTP/1.1 {response.status} {REASONS.get(response.status, 'Status')}",
                f"Content-Type: {response.content_type}", f"Content-Length: {len(response.body)}",
                f"Date: {time.strftime('%a, %d %b %Y %H:%M:%S GMT', time.gmtime())}"]
        head += [f"{name}: {value}" for name, value in response.headers]
        connection.sendall(("\r\n".join(head) + "\r\n\r\n").encode("latin-1") + response.body)

    def fault_response(self, request: Request, status: int) -> Response:
        """The answer of the `status` fault: the service's own error body where the rig knows it."""
        if self.fault_body:
            return self.fault_body(request, status)
        return Response.text(status, REASONS.get(status, "Error"))

    # --- control -----------------------------------------------------------------------------

    def control(self, command: dict) -> dict:
        """Applies one command; returns the acknowledgement (also printed)."""
        self.command_count += 1
        result: dict | None = None
        if "fault" in command:
            mode = command["fault"]
            if mode not in FAULTS:
                raise ValueError(f"unknown fault {mode!r}; one of {', '.join(FAULTS)}")
            if mode == "refuse":
                self._close_listener()
            elif self.listener is None and not self.stopping.is_set():
                self._listen(self.port)  # back on the same port
            times = command.get("times")
            self.fault.set(mode, int(command.get("status", 503)), float(command.get("seconds", 0)),
                           int(times) if times is not None else None)
        else:
            result = self.rig_control(command)
            if result is None:
                raise ValueError(f"unknown command {sorted(command)}")
        acknowledgement = {"event": "control", "id": command.get("id", self.command_count), "command": command}
        if result:
            acknowledgement["result"] = result
        self.out.emit(**acknowledgement)
        return acknowledgement

    def _control_server(self) -> ThreadingHTTPServer:
        rig = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *_: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                length = int(self.headers.get("Content-Length", "0"))
                try:
                    answer = rig.control(json.loads(self.rfile.read(length) or b"{}"))
                    status = 200
                except (ValueError, KeyError, TypeError) as error:
                    answer, status = {"error": str(error)}, 400
                body = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server

    # --- lifecycle ---------------------------------------------------------------------------

    def run(self) -> int:
        """Prints the rig line and READY, then takes commands from stdin until EOF or SIGTERM."""
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
        signal.signal(signal.SIGTERM, lambda *_: self._stop_and_exit())
        self.out.emit(**self.info)
        with self.out.lock:
            print(f"READY {self.port}", flush=True)
        if self.args.fault != "normal":
            self.control({"fault": self.args.fault, "status": self.args.fault_status, "id": "start"})
        for line in sys.stdin:
            line = line.strip()
            if not line:
                continue
            try:
                self.control(json.loads(line))
            except (ValueError, KeyError, TypeError) as error:
                self.out.emit(event="control-error", line=line, error=str(error))
        self._stop_and_exit()
        return 0

    def _stop_and_exit(self) -> None:
        self.stopping.set()
        self._close_listener()
        self.fault.set("normal", 503, 0, None)
        self.out.emit(event="rig-stopping")
        os._exit(0)


def common_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--port", type=int, default=0, help="TCP port on 127.0.0.1 (0: any)")
    parser.add_argument("--plain", action="store_true", help="HTTP instead of HTTPS")
    parser.add_argument("--tls-dir", help="where test_ca.py writes the CA and certificates (default: a new temporary directory)")
    parser.add_argument("--record", help="append what the service accepted to this file (JSON lines)")
    parser.add_argument("--fault", choices=FAULTS, default="normal", help="the fault to start with")
    parser.add_argument("--fault-status", type=int, default=503)


def iso(ms: int) -> str:
    """RFC 3339 in UTC with milliseconds, as JavaScript's Date.toISOString (Nightscout's dateString)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ms // 1000)) + f".{ms % 1000:03d}Z"
