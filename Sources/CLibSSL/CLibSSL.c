// OpenSSL 3's libssl over memory BIOs; see include/CLibSSL.h and docs/crypto.md "TLS".
#include "CLibSSL.h"
#include "CLibCrypto.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

struct vigil_tls_context {
    SSL_CTX *ctx;
    X509 *certificate;  // the server's own; NULL in a client's context
};

struct vigil_tls_session {
    SSL *ssl;
    BIO *input;   // ciphertext from the peer, read by libssl
    BIO *output;  // ciphertext libssl wrote for the peer
};

// Vigil's behaviour must not depend on the machine's openssl.cnf: it is never read.
static void init(void) {
    OPENSSL_init_ssl(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
    ERR_clear_error();
}

// OpenSSL's reason for the failure (CLibCrypto's helper), or `fallback`; empties the queue.
static int fail(char *reason, size_t capacity, const char *fallback) {
    vigil_openssl_reason(reason, capacity, fallback);
    return VIGIL_TLS_FAILED;
}

static int no_password(char *buffer, int size, int rwflag, void *userdata) {
    (void)buffer; (void)size; (void)rwflag; (void)userdata;
    return 0;  // an encrypted key is refused rather than prompting on the daemon's terminal
}

vigil_tls_context *vigil_tls_context_new(const uint8_t *certificate, size_t certificate_length,
                                         const uint8_t *key, size_t key_length,
                                         char *reason, size_t reason_capacity) {
    init();
    if (certificate_length > INT_MAX || key_length > INT_MAX) {
        vigil_openssl_reason(reason, reason_capacity, "file too large");
        return NULL;
    }
    vigil_tls_context *context = calloc(1, sizeof *context);
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    BIO *chain = BIO_new_mem_buf(certificate, (int)certificate_length);
    BIO *keys = BIO_new_mem_buf(key, (int)key_length);
    EVP_PKEY *private_key = NULL;
    const char *failure = NULL;
    if (context == NULL || ctx == NULL || chain == NULL || keys == NULL) {
        failure = "out of memory";
        goto done;
    }
    context->ctx = ctx;
    // TLS 1.2 and 1.3 only; no renegotiation (a client could make the server work at will).
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) { failure = "cannot set TLS 1.2 as the minimum"; goto done; }
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_COMPRESSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    // No server-side cache: memory stays bounded by the connections; tickets still resume.
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    context->certificate = PEM_read_bio_X509(chain, NULL, no_password, NULL);
    if (context->certificate == NULL) { failure = "no PEM certificate (-----BEGIN CERTIFICATE-----) in the file"; goto done; }
    if (SSL_CTX_use_certificate(ctx, context->certificate) != 1) { failure = "the certificate is not usable"; goto done; }
    for (;;) {
        X509 *intermediate = PEM_read_bio_X509(chain, NULL, no_password, NULL);
        if (intermediate == NULL) break;
        if (SSL_CTX_add0_chain_cert(ctx, intermediate) != 1) {
            X509_free(intermediate);
            failure = "an intermediate certificate is not usable";
            goto done;
        }
    }
    ERR_clear_error();  // the end of the chain is an error entry ("no start line")
    private_key = PEM_read_bio_PrivateKey(keys, NULL, no_password, NULL);
    if (private_key == NULL) { failure = "no unencrypted PEM private key (-----BEGIN PRIVATE KEY-----) in the file"; goto done; }
    if (SSL_CTX_use_PrivateKey(ctx, private_key) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
        ERR_clear_error();
        failure = "the private key does not belong to the certificate";
        goto done;
    }
done:
    BIO_free(chain);
    BIO_free(keys);
    EVP_PKEY_free(private_key);
    if (failure != NULL) {
        // The reason names the file's problem; OpenSSL's queue may hold a deeper one.
        if (reason != NULL && reason_capacity > 0) {
            strncpy(reason, failure, reason_capacity - 1);
            reason[reason_capacity - 1] = 0;
        }
        ERR_clear_error();
        if (context != NULL) {
            X509_free(context->certificate);
            free(context);
        }
        SSL_CTX_free(ctx);
        return NULL;
    }
    return context;
}

void vigil_tls_context_free(vigil_tls_context *context) {
    if (context == NULL) return;
    X509_free(context->certificate);
    SSL_CTX_free(context->ctx);
    free(context);
}

vigil_tls_context *vigil_tls_client_context_new(const uint8_t *authorities, size_t authorities_length,
                                                size_t *loaded, char *reason, size_t reason_capacity) {
    init();
    if (loaded != NULL) *loaded = 0;
    if (authorities_length > INT_MAX) {
        vigil_openssl_reason(reason, reason_capacity, "the CA file is too large");
        return NULL;
    }
    vigil_tls_context *context = calloc(1, sizeof *context);
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    BIO *bundle = BIO_new_mem_buf(authorities, (int)authorities_length);
    const char *failure = NULL;
    size_t count = 0;
    if (context == NULL || ctx == NULL || bundle == NULL) {
        failure = "out of memory";
        goto done;
    }
    context->ctx = ctx;
    if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) { failure = "cannot set TLS 1.2 as the minimum"; goto done; }
    SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
    // Every connection is fresh (docs/http-client.md): nothing to resume, nothing to keep.
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
    // The peer's chain must verify against the bundle, or the handshake fails: never optional.
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    X509_STORE *store = SSL_CTX_get_cert_store(ctx);
    for (;;) {
        X509 *authority = PEM_read_bio_X509(bundle, NULL, no_password, NULL);
        if (authority == NULL) {
            unsigned long error = ERR_peek_last_error();
            // The end of the bundle is "no start line"; anything else is a damaged certificate.
            if (ERR_GET_LIB(error) != ERR_LIB_PEM || ERR_GET_REASON(error) != PEM_R_NO_START_LINE) {
                failure = "a certificate in the CA file is damaged (not valid PEM)";
                goto done;
            }
            break;
        }
        int added = X509_STORE_add_cert(store, authority);
        X509_free(authority);
        if (added != 1) { failure = "a certificate in the CA file cannot be used"; goto done; }
        count += 1;
    }
    ERR_clear_error();
    if (count == 0) failure = "no PEM certificate (-----BEGIN CERTIFICATE-----) in the CA file";
done:
    BIO_free(bundle);
    if (failure != NULL) {
        if (reason != NULL && reason_capacity > 0) {
            strncpy(reason, failure, reason_capacity - 1);
            reason[reason_capacity - 1] = 0;
        }
        ERR_clear_error();
        free(context);
        SSL_CTX_free(ctx);
        return NULL;
    }
    if (loaded != NULL) *loaded = count;
    return context;
}

int vigil_tls_context_describe(const vigil_tls_context *context, char *text, size_t capacity) {
    if (capacity == 0) return -1;
    text[0] = 0;
    if (context->certificate == NULL) return -1;
    BIO *out = BIO_new(BIO_s_mem());
    if (out == NULL) return -1;
    BIO_puts(out, "subject ");
    X509_NAME_print_ex(out, X509_get_subject_name(context->certificate), 0, XN_FLAG_ONELINE & ~ASN1_STRFLGS_ESC_MSB);
    BIO_puts(out, ", valid until ");
    ASN1_TIME_print(out, X509_get0_notAfter(context->certificate));
    int length = BIO_read(out, text, (int)(capacity - 1 > INT_MAX ? INT_MAX : capacity - 1));
    text[length > 0 ? length : 0] = 0;
    BIO_free(out);
    ERR_clear_error();
    return 0;
}

// A session over two fresh memory BIOs, not yet told which side it is.
static vigil_tls_session *session_new(vigil_tls_context *context) {
    vigil_tls_session *session = calloc(1, sizeof *session);
    if (session == NULL) return NULL;
    session->ssl = SSL_new(context->ctx);
    session->input = BIO_new(BIO_s_mem());
    session->output = BIO_new(BIO_s_mem());
    if (session->ssl == NULL || session->input == NULL || session->output == NULL) {
        SSL_free(session->ssl);
        BIO_free(session->input);
        BIO_free(session->output);
        free(session);
        ERR_clear_error();
        return NULL;
    }
    // An empty memory BIO says "retry" rather than end of file: more may come from the socket.
    BIO_set_mem_eof_return(session->input, -1);
    BIO_set_mem_eof_return(session->output, -1);
    SSL_set_bio(session->ssl, session->input, session->output);  // the SSL owns both now
    return session;
}

vigil_tls_session *vigil_tls_session_new(vigil_tls_context *context) {
    vigil_tls_session *session = session_new(context);
    if (session != NULL) SSL_set_accept_state(session->ssl);
    return session;
}

// Whether `host` is an IPv4 or IPv6 literal (no brackets).
static int is_ip_literal(const char *host) {
    ASN1_OCTET_STRING *address = a2i_IPADDRESS(host);
    ERR_clear_error();
    if (address == NULL) return 0;
    ASN1_OCTET_STRING_free(address);
    return 1;
}

vigil_tls_session *vigil_tls_client_session_new(vigil_tls_context *context, const char *server_name,
                                                char *reason, size_t reason_capacity) {
    if (server_name == NULL || server_name[0] == 0) {
        vigil_openssl_reason(reason, reason_capacity, "no server name to check the certificate against");
        return NULL;
    }
    vigil_tls_session *session = session_new(context);
    if (session == NULL) {
        vigil_openssl_reason(reason, reason_capacity, "out of memory");
        return NULL;
    }
    SSL_set_connect_state(session->ssl);
    // SNI carries host names only (RFC 6066 section 3: "Literal IPv4 and IPv6 addresses are
    // not permitted"); the certificate check takes either (SSL_set1_host parses an address).
    int named = is_ip_literal(server_name) || SSL_set_tlsext_host_name(session->ssl, server_name) == 1;
    if (!named || SSL_set1_host(session->ssl, server_name) != 1) {
        vigil_tls_session_free(session);
        vigil_openssl_reason(reason, reason_capacity, "the server name cannot be checked against a certificate");
        return NULL;
    }
    // Partial wildcards ("w*.example") are not matched (RFC 6125 section 6.4.3 allows refusing them).
    SSL_set_hostflags(session->ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
    return session;
}

void vigil_tls_session_free(vigil_tls_session *session) {
    if (session == NULL) return;
    SSL_free(session->ssl);
    free(session);
    ERR_clear_error();
}

int vigil_tls_session_receive(vigil_tls_session *session, const uint8_t *bytes, size_t length) {
    size_t done = 0;
    while (done < length) {
        size_t chunk = length - done > INT_MAX ? INT_MAX : length - done;
        int written = BIO_write(session->input, bytes + done, (int)chunk);
        if (written <= 0) { ERR_clear_error(); return VIGIL_TLS_FAILED; }
        done += (size_t)written;
    }
    return 0;
}

size_t vigil_tls_session_buffered_input(const vigil_tls_session *session) { return BIO_ctrl_pending(session->input); }

size_t vigil_tls_session_pending_output(const vigil_tls_session *session) { return BIO_ctrl_pending(session->output); }

size_t vigil_tls_session_take(vigil_tls_session *session, uint8_t *bytes, size_t capacity) {
    if (capacity == 0) return 0;
    int read = BIO_read(session->output, bytes, capacity > INT_MAX ? INT_MAX : (int)capacity);
    ERR_clear_error();
    return read > 0 ? (size_t)read : 0;
}

// What an SSL call's non-positive result means here.
static int outcome(vigil_tls_session *session, int result, char *reason, size_t capacity) {
    switch (SSL_get_error(session->ssl, result)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        ERR_clear_error();
        return VIGIL_TLS_WANT_MORE;
    case SSL_ERROR_ZERO_RETURN:
        ERR_clear_error();
        return VIGIL_TLS_CLOSED;
    default:
        return fail(reason, capacity, "the TLS connection failed");
    }
}

int vigil_tls_session_handshake(vigil_tls_session *session, char *reason, size_t reason_capacity) {
    if (SSL_is_init_finished(session->ssl)) return 1;
    ERR_clear_error();
    int result = SSL_do_handshake(session->ssl);
    if (result == 1) return 1;
    long verified = SSL_get_verify_result(session->ssl);
    if (verified != X509_V_OK && SSL_get_error(session->ssl, result) == SSL_ERROR_SSL) {
        // OpenSSL's queue says only "certificate verify failed"; the store says why.
        if (reason != NULL && reason_capacity > 0) {
            snprintf(reason, reason_capacity, "certificate verify failed: %s", X509_verify_cert_error_string(verified));
        }
        ERR_clear_error();
        return VIGIL_TLS_FAILED;
    }
    int status = outcome(session, result, reason, reason_capacity);
    return status == VIGIL_TLS_CLOSED ? fail(reason, reason_capacity, "the peer closed during the handshake") : status;
}

int vigil_tls_session_read(vigil_tls_session *session, uint8_t *bytes, size_t capacity, char *reason, size_t reason_capacity) {
    if (capacity == 0) return VIGIL_TLS_WANT_MORE;
    ERR_clear_error();
    int result = SSL_read(session->ssl, bytes, capacity > INT_MAX ? INT_MAX : (int)capacity);
    return result > 0 ? result : outcome(session, result, reason, reason_capacity);
}

int vigil_tls_session_write(vigil_tls_session *session, const uint8_t *bytes, size_t length, char *reason, size_t reason_capacity) {
    if (length == 0) return VIGIL_TLS_WANT_MORE;
    ERR_clear_error();
    int result = SSL_write(session->ssl, bytes, length > INT_MAX ? INT_MAX : (int)length);
    return result > 0 ? result : outcome(session, result, reason, reason_capacity);
}

void vigil_tls_session_close(vigil_tls_session *session) {
    ERR_clear_error();
    if (SSL_is_init_finished(session->ssl)) (void)SSL_shutdown(session->ssl);
    ERR_clear_error();
}
