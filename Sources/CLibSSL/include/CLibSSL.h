#ifndef VIGIL_CLIBSSL_H
#define VIGIL_CLIBSSL_H
// OpenSSL 3's libssl as a server or a client over memory buffers (docs/crypto.md "TLS"): the socket owner
// moves ciphertext between the socket and a session, the session hands plaintext in and out.
// No socket, no file and no openssl.cnf is ever touched here. TLS 1.2 and 1.3 only.
//
// Functions that can fail for a reason OpenSSL states write it, NUL-terminated and cut to
// `reason_capacity`, into `reason` (which may be NULL). No reason ever holds key material.

#include <stddef.h>
#include <stdint.h>

/// A server's certificate chain and private key, checked to match, or a client's trusted
/// certificate authorities: shared by every session.
typedef struct vigil_tls_context vigil_tls_context;
/// One connection's TLS state with its two memory buffers.
typedef struct vigil_tls_session vigil_tls_session;

/// The certificate chain (PEM: the server's certificate first, then any intermediates) and its
/// private key (PEM); NULL with `reason` when either cannot be read or they do not match.
vigil_tls_context *vigil_tls_context_new(const uint8_t *certificate, size_t certificate_length,
                                         const uint8_t *key, size_t key_length,
                                         char *reason, size_t reason_capacity);
void vigil_tls_context_free(vigil_tls_context *context);
/// The certificate's subject and validity end, as one line of text for the log (never secret).
int vigil_tls_context_describe(const vigil_tls_context *context, char *text, size_t capacity);

/// A client's context: TLS 1.2 or later, the peer's certificate verified (always) against the
/// PEM certificates in `authorities` (a bundle such as ca-certificates.crt), their number in
/// `loaded`. NULL with `reason` when the bundle holds none or a damaged one.
vigil_tls_context *vigil_tls_client_context_new(const uint8_t *authorities, size_t authorities_length,
                                                size_t *loaded, char *reason, size_t reason_capacity);

/// A new server session; NULL only when memory runs out.
vigil_tls_session *vigil_tls_session_new(vigil_tls_context *context);
/// A new client session (of a client context) for `server_name`, a DNS name or an IP address:
/// sent as SNI (a name only) and required of the certificate. NULL with `reason` when it cannot.
vigil_tls_session *vigil_tls_client_session_new(vigil_tls_context *context, const char *server_name,
                                                char *reason, size_t reason_capacity);
void vigil_tls_session_free(vigil_tls_session *session);

/// Ciphertext from the peer, buffered for the next call that reads (all of it is taken).
int vigil_tls_session_receive(vigil_tls_session *session, const uint8_t *bytes, size_t length);
/// Ciphertext received and not yet processed.
size_t vigil_tls_session_buffered_input(const vigil_tls_session *session);
/// Ciphertext waiting to be sent to the peer.
size_t vigil_tls_session_pending_output(const vigil_tls_session *session);
/// Moves up to `capacity` bytes of ciphertext for the peer into `bytes`: the count.
size_t vigil_tls_session_take(vigil_tls_session *session, uint8_t *bytes, size_t capacity);

#define VIGIL_TLS_WANT_MORE (0)
#define VIGIL_TLS_FAILED (-1)
#define VIGIL_TLS_CLOSED (-2)

/// Runs the handshake as far as the buffered ciphertext allows: 1 once it is complete,
/// VIGIL_TLS_WANT_MORE, or VIGIL_TLS_FAILED with `reason` ("certificate verify failed: " and
/// the store's reason when the peer's certificate did not verify).
int vigil_tls_session_handshake(vigil_tls_session *session, char *reason, size_t reason_capacity);
/// Decrypts up to `capacity` bytes of plaintext: the count (> 0), VIGIL_TLS_WANT_MORE,
/// VIGIL_TLS_CLOSED (the peer's close_notify) or VIGIL_TLS_FAILED with `reason`.
int vigil_tls_session_read(vigil_tls_session *session, uint8_t *bytes, size_t capacity, char *reason, size_t reason_capacity);
/// Encrypts up to `length` bytes of plaintext (after the handshake): the count taken (> 0),
/// VIGIL_TLS_WANT_MORE or VIGIL_TLS_FAILED with `reason`.
int vigil_tls_session_write(vigil_tls_session *session, const uint8_t *bytes, size_t length, char *reason, size_t reason_capacity);
/// Queues a close_notify for the peer.
void vigil_tls_session_close(vigil_tls_session *session);

#endif
