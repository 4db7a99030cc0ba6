// OpenSSL 3 libcrypto behind a byte-oriented interface; see include/CLibCrypto.h and docs/crypto.md.
#include "CLibCrypto.h"

#include <limits.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

// Vigil's behaviour must not depend on the machine's openssl.cnf (which could load providers or
// change defaults): the configuration file is never read. The first call decides; OpenSSL runs
// it once.
static void init(void) {
    OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, NULL);
    ERR_clear_error();
}

static void set_reason(char *reason, size_t capacity, const char *fallback) { vigil_openssl_reason(reason, capacity, fallback); }

void vigil_openssl_reason(char *reason, size_t capacity, const char *fallback) {
    unsigned long error = ERR_get_error();
    if (reason != NULL && capacity > 0) {
        const char *text = error != 0 ? ERR_reason_error_string(error) : NULL;
        if (text == NULL) text = fallback;
        strncpy(reason, text, capacity - 1);
        reason[capacity - 1] = 0;
    }
    ERR_clear_error();
}

// MARK: P-256

static EC_GROUP *p256(void) { return EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1); }

// Decodes x ‖ y; OpenSSL refuses coordinates not below the prime and points off the curve.
static int decode_point(const EC_GROUP *group, const uint8_t xy[64], EC_POINT *point, BN_CTX *ctx) {
    uint8_t encoded[65];
    encoded[0] = POINT_CONVERSION_UNCOMPRESSED;
    memcpy(encoded + 1, xy, 64);
    if (EC_POINT_oct2point(group, point, encoded, sizeof encoded, ctx) != 1) return VIGIL_CRYPTO_NOT_ON_CURVE;
    if (EC_POINT_is_on_curve(group, point, ctx) != 1) return VIGIL_CRYPTO_NOT_ON_CURVE;
    return VIGIL_CRYPTO_OK;
}

static int encode_point(const EC_GROUP *group, const EC_POINT *point, uint8_t xy[64], BN_CTX *ctx) {
    if (EC_POINT_is_at_infinity(group, point)) return VIGIL_CRYPTO_INFINITY;
    uint8_t encoded[65];
    if (EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, encoded, sizeof encoded, ctx) != 65) {
        return VIGIL_CRYPTO_FAILED;
    }
    memcpy(xy, encoded + 1, 64);
    return VIGIL_CRYPTO_OK;
}

// The curve, a context and up to three points: what every point operation starts from.
struct arena {
    EC_GROUP *group;
    BN_CTX *ctx;
    EC_POINT *p, *q, *r;
};

static int arena_open(struct arena *a) {
    init();
    a->group = p256();
    a->ctx = BN_CTX_new();
    a->p = a->group ? EC_POINT_new(a->group) : NULL;
    a->q = a->group ? EC_POINT_new(a->group) : NULL;
    a->r = a->group ? EC_POINT_new(a->group) : NULL;
    return a->group && a->ctx && a->p && a->q && a->r ? VIGIL_CRYPTO_OK : VIGIL_CRYPTO_FAILED;
}

static int arena_close(struct arena *a, int status) {
    EC_POINT_clear_free(a->p);
    EC_POINT_clear_free(a->q);
    EC_POINT_clear_free(a->r);
    BN_CTX_free(a->ctx);
    EC_GROUP_free(a->group);
    ERR_clear_error();
    return status;
}

int vigil_p256_point_check(const uint8_t point[64]) {
    struct arena a;
    int status = arena_open(&a);
    if (status == VIGIL_CRYPTO_OK) status = decode_point(a.group, point, a.p, a.ctx);
    return arena_close(&a, status);
}

int vigil_p256_point_add(const uint8_t left[64], const uint8_t right[64], uint8_t out[64]) {
    struct arena a;
    int status = arena_open(&a);
    if (status == VIGIL_CRYPTO_OK) status = decode_point(a.group, left, a.p, a.ctx);
    if (status == VIGIL_CRYPTO_OK) status = decode_point(a.group, right, a.q, a.ctx);
    if (status == VIGIL_CRYPTO_OK && EC_POINT_add(a.group, a.r, a.p, a.q, a.ctx) != 1) status = VIGIL_CRYPTO_FAILED;
    if (status == VIGIL_CRYPTO_OK) status = encode_point(a.group, a.r, out, a.ctx);
    return arena_close(&a, status);
}

// k·point, or k·G when `point` is NULL. The scalar is secret (a private key or a randomizer):
// BN_FLG_CONSTTIME keeps OpenSSL on its constant-time paths.
static int multiply(const uint8_t *point, const uint8_t k[32], uint8_t out[64]) {
    struct arena a;
    int status = arena_open(&a);
    BIGNUM *scalar = BN_secure_new();
    if (scalar == NULL || BN_bin2bn(k, 32, scalar) == NULL) status = VIGIL_CRYPTO_FAILED;
    if (status == VIGIL_CRYPTO_OK) BN_set_flags(scalar, BN_FLG_CONSTTIME);
    if (status == VIGIL_CRYPTO_OK && point != NULL) status = decode_point(a.group, point, a.p, a.ctx);
    if (status == VIGIL_CRYPTO_OK) {
        int done = point != NULL ? EC_POINT_mul(a.group, a.r, NULL, a.p, scalar, a.ctx)
                                 : EC_POINT_mul(a.group, a.r, scalar, NULL, NULL, a.ctx);
        if (done != 1) status = VIGIL_CRYPTO_FAILED;
    }
    if (status == VIGIL_CRYPTO_OK) status = encode_point(a.group, a.r, out, a.ctx);
    BN_clear_free(scalar);
    return arena_close(&a, status);
}

int vigil_p256_point_mul(const uint8_t point[64], const uint8_t k[32], uint8_t out[64]) {
    return multiply(point, k, out);
}

int vigil_p256_base_mul(const uint8_t k[32], uint8_t out[64]) { return multiply(NULL, k, out); }

// MARK: Scalars

enum scalar_op { SCALAR_MUL, SCALAR_SUB, SCALAR_REDUCE };

static int scalar(enum scalar_op op, const uint8_t left[32], const uint8_t *right, uint8_t out[32]) {
    init();
    EC_GROUP *group = p256();
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *a = BN_secure_new(), *b = BN_secure_new(), *r = BN_secure_new();
    int status = group && ctx && a && b && r ? VIGIL_CRYPTO_OK : VIGIL_CRYPTO_FAILED;
    const BIGNUM *n = group ? EC_GROUP_get0_order(group) : NULL;
    if (status == VIGIL_CRYPTO_OK && BN_bin2bn(left, 32, a) == NULL) status = VIGIL_CRYPTO_FAILED;
    if (status == VIGIL_CRYPTO_OK && right != NULL && BN_bin2bn(right, 32, b) == NULL) status = VIGIL_CRYPTO_FAILED;
    // BN_mod_sub wants its operands already reduced for a result in [0, n).
    if (status == VIGIL_CRYPTO_OK && op != SCALAR_REDUCE && (BN_nnmod(a, a, n, ctx) != 1 || BN_nnmod(b, b, n, ctx) != 1)) {
        status = VIGIL_CRYPTO_FAILED;
    }
    if (status == VIGIL_CRYPTO_OK) {
        int done = 0;
        switch (op) {
        case SCALAR_MUL: done = BN_mod_mul(r, a, b, n, ctx); break;
        case SCALAR_SUB: done = BN_mod_sub(r, a, b, n, ctx); break;
        case SCALAR_REDUCE: done = BN_nnmod(r, a, n, ctx); break;
        }
        if (done != 1 || BN_bn2binpad(r, out, 32) != 32) status = VIGIL_CRYPTO_FAILED;
    }
    BN_clear_free(a);
    BN_clear_free(b);
    BN_clear_free(r);
    BN_CTX_free(ctx);
    EC_GROUP_free(group);
    ERR_clear_error();
    return status;
}

int vigil_p256_scalar_mul(const uint8_t a[32], const uint8_t b[32], uint8_t out[32]) {
    return scalar(SCALAR_MUL, a, b, out);
}

int vigil_p256_scalar_sub(const uint8_t a[32], const uint8_t b[32], uint8_t out[32]) {
    return scalar(SCALAR_SUB, a, b, out);
}

int vigil_p256_scalar_reduce(const uint8_t digest[32], uint8_t out[32]) {
    return scalar(SCALAR_REDUCE, digest, NULL, out);
}

// MARK: PEM

int vigil_pem_next(const uint8_t *pem, size_t pem_length, size_t *offset, char *label, size_t label_capacity,
                   uint8_t *der, size_t der_capacity, size_t *der_length, char *reason, size_t reason_capacity) {
    init();
    if (*offset >= pem_length) return VIGIL_CRYPTO_END;
    size_t rest = pem_length - *offset;
    if (rest > INT_MAX) rest = INT_MAX;
    BIO *bio = BIO_new_mem_buf(pem + *offset, (int)rest);
    if (bio == NULL) {
        set_reason(reason, reason_capacity, "out of memory");
        return VIGIL_CRYPTO_FAILED;
    }
    char *name = NULL, *header = NULL;
    unsigned char *data = NULL;
    long length = 0;
    int status = VIGIL_CRYPTO_OK;
    if (PEM_read_bio(bio, &name, &header, &data, &length) != 1) {
        // "No start line" is how PEM_read_bio says the input holds no further block.
        unsigned long error = ERR_peek_last_error();
        if (ERR_GET_LIB(error) == ERR_LIB_PEM && ERR_GET_REASON(error) == PEM_R_NO_START_LINE) {
            ERR_clear_error();
            status = VIGIL_CRYPTO_END;
        } else {
            set_reason(reason, reason_capacity, "broken PEM block");
            status = VIGIL_CRYPTO_UNREADABLE;
        }
    } else if (header != NULL && header[0] != 0) {
        // Only a password-protected block (Proc-Type: 4,ENCRYPTED) carries headers.
        set_reason(reason, reason_capacity, "the block is encrypted (PEM headers); store it unencrypted");
        status = VIGIL_CRYPTO_UNREADABLE;
    } else if (strlen(name) >= label_capacity || (size_t)length > der_capacity) {
        status = VIGIL_CRYPTO_TOO_LONG;
    } else {
        strcpy(label, name);
        memcpy(der, data, (size_t)length);
        *der_length = (size_t)length;
        *offset += rest - (size_t)BIO_pending(bio);
    }
    if (data != NULL) OPENSSL_clear_free(data, (size_t)length);
    OPENSSL_free(name);
    OPENSSL_free(header);
    BIO_free(bio);
    return status;
}

// MARK: Keys and certificates

// VIGIL_CRYPTO_OK when `key` is an EC key on P-256.
static int check_p256(const EVP_PKEY *key) {
    char group[32];
    if (!EVP_PKEY_is_a(key, "EC")) return VIGIL_CRYPTO_NOT_P256;
    if (EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof group, NULL) != 1) {
        ERR_clear_error(); // explicit curve parameters, which name no group
        return VIGIL_CRYPTO_NOT_P256;
    }
    return strcmp(group, SN_X9_62_prime256v1) == 0 ? VIGIL_CRYPTO_OK : VIGIL_CRYPTO_NOT_P256;
}

static X509 *read_certificate(const uint8_t *der, size_t length) {
    const unsigned char *cursor = der;
    X509 *certificate = d2i_X509(NULL, &cursor, (long)length);
    // Trailing bytes would be a second object in the block, which a certificate block never holds.
    if (certificate != NULL && cursor != der + length) {
        X509_free(certificate);
        return NULL;
    }
    return certificate;
}

int vigil_certificate_p256_public_key(const uint8_t *der, size_t der_length, uint8_t point[64], char *reason,
                                      size_t reason_capacity) {
    init();
    X509 *certificate = read_certificate(der, der_length);
    if (certificate == NULL) {
        set_reason(reason, reason_capacity, "not a DER X.509 certificate");
        return VIGIL_CRYPTO_UNREADABLE;
    }
    EVP_PKEY *key = X509_get0_pubkey(certificate);
    int status = key == NULL ? VIGIL_CRYPTO_UNREADABLE : check_p256(key);
    BIGNUM *x = NULL, *y = NULL;
    if (status == VIGIL_CRYPTO_OK && (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_X, &x) != 1 ||
                                      EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_EC_PUB_Y, &y) != 1 ||
                                      BN_bn2binpad(x, point, 32) != 32 || BN_bn2binpad(y, point + 32, 32) != 32)) {
        status = VIGIL_CRYPTO_UNREADABLE;
    }
    if (status == VIGIL_CRYPTO_UNREADABLE) set_reason(reason, reason_capacity, "unreadable public key");
    BN_free(x);
    BN_free(y);
    X509_free(certificate);
    ERR_clear_error();
    return status;
}

int vigil_certificate_verify(const uint8_t *leaf, size_t leaf_length, const uint8_t *issuer, size_t issuer_length,
                             char *reason, size_t reason_capacity) {
    init();
    X509 *subject = read_certificate(leaf, leaf_length);
    X509 *signer = read_certificate(issuer, issuer_length);
    int status = VIGIL_CRYPTO_OK;
    EVP_PKEY *key = signer != NULL ? X509_get0_pubkey(signer) : NULL;
    if (subject == NULL || key == NULL) {
        set_reason(reason, reason_capacity, "not a DER X.509 certificate");
        status = VIGIL_CRYPTO_UNREADABLE;
    } else if (X509_verify(subject, key) != 1) {
        set_reason(reason, reason_capacity, "signature does not verify");
        status = VIGIL_CRYPTO_FAILED;
    }
    X509_free(subject);
    X509_free(signer);
    ERR_clear_error();
    return status;
}

int vigil_private_key_p256(const uint8_t *der, size_t der_length, uint8_t scalar_out[32], char *reason,
                           size_t reason_capacity) {
    init();
    const unsigned char *cursor = der;
    EVP_PKEY *key = d2i_AutoPrivateKey(NULL, &cursor, (long)der_length);
    if (key == NULL) {
        set_reason(reason, reason_capacity, "not a DER private key");
        return VIGIL_CRYPTO_UNREADABLE;
    }
    int status = check_p256(key);
    BIGNUM *secret = NULL;
    if (status == VIGIL_CRYPTO_OK && (EVP_PKEY_get_bn_param(key, OSSL_PKEY_PARAM_PRIV_KEY, &secret) != 1 ||
                                      BN_bn2binpad(secret, scalar_out, 32) != 32)) {
        set_reason(reason, reason_capacity, "unreadable private scalar");
        status = VIGIL_CRYPTO_UNREADABLE;
    }
    BN_clear_free(secret);
    EVP_PKEY_free(key);
    ERR_clear_error();
    return status;
}

// An EVP_PKEY for signing, from the raw scalar and the public point it makes.
static EVP_PKEY *signing_key(const uint8_t scalar_in[32]) {
    uint8_t point[65];
    point[0] = POINT_CONVERSION_UNCOMPRESSED;
    if (vigil_p256_base_mul(scalar_in, point + 1) != VIGIL_CRYPTO_OK) return NULL;
    EVP_PKEY *key = NULL;
    BIGNUM *secret = BN_secure_new();
    OSSL_PARAM_BLD *builder = OSSL_PARAM_BLD_new();
    OSSL_PARAM *params = NULL;
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
    if (secret && builder && ctx && BN_bin2bn(scalar_in, 32, secret) &&
        OSSL_PARAM_BLD_push_utf8_string(builder, OSSL_PKEY_PARAM_GROUP_NAME, SN_X9_62_prime256v1, 0) &&
        OSSL_PARAM_BLD_push_BN(builder, OSSL_PKEY_PARAM_PRIV_KEY, secret) &&
        OSSL_PARAM_BLD_push_octet_string(builder, OSSL_PKEY_PARAM_PUB_KEY, point, sizeof point) &&
        (params = OSSL_PARAM_BLD_to_param(builder)) != NULL && EVP_PKEY_fromdata_init(ctx) == 1) {
        if (EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_KEYPAIR, params) != 1) key = NULL;
    }
    OSSL_PARAM_free(params);
    OSSL_PARAM_BLD_free(builder);
    EVP_PKEY_CTX_free(ctx);
    BN_clear_free(secret);
    return key;
}

int vigil_ecdsa_p256_sign(const uint8_t key[32], const uint8_t digest[32], uint8_t signature[64], char *reason,
                          size_t reason_capacity) {
    init();
    EVP_PKEY *pkey = signing_key(key);
    EVP_PKEY_CTX *ctx = pkey != NULL ? EVP_PKEY_CTX_new_from_pkey(NULL, pkey, NULL) : NULL;
    unsigned char der[80]; // an ECDSA P-256 signature's DER is at most 72 bytes
    size_t der_length = sizeof der;
    ECDSA_SIG *parsed = NULL;
    int status = VIGIL_CRYPTO_FAILED;
    if (ctx != NULL && EVP_PKEY_sign_init(ctx) == 1 && EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256()) == 1 &&
        EVP_PKEY_sign(ctx, der, &der_length, digest, 32) == 1) {
        const unsigned char *cursor = der;
        parsed = d2i_ECDSA_SIG(NULL, &cursor, (long)der_length);
        const BIGNUM *r = NULL, *s = NULL;
        if (parsed != NULL) ECDSA_SIG_get0(parsed, &r, &s);
        if (r != NULL && s != NULL && BN_bn2binpad(r, signature, 32) == 32 && BN_bn2binpad(s, signature + 32, 32) == 32) {
            status = VIGIL_CRYPTO_OK;
        }
    }
    if (status != VIGIL_CRYPTO_OK) set_reason(reason, reason_capacity, "signing failed");
    ECDSA_SIG_free(parsed);
    EVP_PKEY_CTX_free(ctx);
    EVP_PKEY_free(pkey);
    ERR_clear_error();
    return status;
}
