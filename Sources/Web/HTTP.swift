/// HTTP/1.1 for Vigil's page and its Nightscout API: the messages (RFC 9110 semantics, RFC 9112
/// syntax), a bounded incremental request parser, one client's connection and the server that
/// holds many; and the client the upload and the followers share (`Client/`, a bounded
/// incremental response parser and the exchanges' phases), all sans-IO. Nothing here reads a clock or touches a socket:
/// the platform target reads and writes the bytes, and the poll loop passes `now` in. What is
/// accepted, every limit and the reasons for them: docs/http.md.
public enum HTTP {}
