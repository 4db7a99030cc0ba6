#ifndef VIGIL_CLIBCRYPTO_H
#define VIGIL_CLIBCRYPTO_H
// The few operations of OpenSSL 3's libcrypto that Vigil needs and swift-crypto does not offer
// (docs/crypto.md): NIST P-256 arithmetic on arbitrary points for the Dexcom G7's EC J-PAKE, and
// reading and using the display's certificates and signing key (docs/protocols/dexcom-g7.md).
//
// Every function is byte-oriented and stateless: no OpenSSL type crosses into Swift, nothing is
// kept between calls. Points are 64 bytes, x ‖ y big-endian (the J-PAKE packet's form; the point
// at infinity has no such form and is an error). Scalars are 32 bytes big-endian. Each function
// returns VIGIL_CRYPTO_OK or a negative VIGIL_CRYPTO_* status; those that can fail for a reason
// OpenSSL states write it, NUL-terminated and cut to `reason_capacity`, into `reason` (which may
// be NULL). No function writes key material into `reason`.

#include <stddef.h>
#include <stdint.h>

#define VIGIL_CRYPTO_OK (0)
/// A point is not on P-256 (or its coordinates are not below the field prime).
#define VIGIL_CRYPTO_NOT_ON_CURVE (-1)
/// A result is the point at infinity, which has no 64-byte form.
#define VIGIL_CRYPTO_INFINITY (-2)
/// OpenSSL failed where it should not (memory, an internal error): `reason` says what.
#define VIGIL_CRYPTO_FAILED (-3)
/// A PEM block, certificate or key that OpenSSL cannot decode: `reason` says why.
#define VIGIL_CRYPTO_UNREADABLE (-4)
/// A key that is not an elliptic-curve key on P-256 (prime256v1).
#define VIGIL_CRYPTO_NOT_P256 (-5)
/// vigil_pem_next: no further PEM block in the input.
#define VIGIL_CRYPTO_END (-6)
/// A buffer too small for the result.
#define VIGIL_CRYPTO_TOO_LONG (-7)

// MARK: P-256 points

/// VIGIL_CRYPTO_OK when `point` is on P-256 (and so not the point at infinity).
int vigil_p256_point_check(const uint8_t point[64]);

/// out = a + b. Both must be on the curve.
int vigil_p256_point_add(const uint8_t a[64], const uint8_t b[64], uint8_t out[64]);

/// out = k·point, `point` on the curve, any 32-byte k (a multiple of the order gives infinity).
int vigil_p256_point_mul(const uint8_t point[64], const uint8_t k[32], uint8_t out[64]);

/// out = k·G, G the generator.
int vigil_p256_base_mul(const uint8_t k[32], uint8_t out[64]);

// MARK: Scalars mod n, the order of G

/// out = a·b mod n.
int vigil_p256_scalar_mul(const uint8_t a[32], const uint8_t b[32], uint8_t out[32]);

/// out = a − b mod n, in [0, n).
int vigil_p256_scalar_sub(const uint8_t a[32], const uint8_t b[32], uint8_t out[32]);

/// out = digest mod n: a 32-byte hash read as one big-endian integer, reduced.
int vigil_p256_scalar_reduce(const uint8_t digest[32], uint8_t out[32]);

// MARK: PEM, certificates and keys

/// Reads the PEM block of `pem` that starts at or after `*offset` (text outside blocks is
/// skipped). On VIGIL_CRYPTO_OK: its label ("CERTIFICATE", "EC PRIVATE KEY", ...) NUL-terminated
/// in `label`, its decoded contents in `der` (`*der_length` bytes), and `*offset` just past the
/// block. VIGIL_CRYPTO_END when no block starts after `*offset`; VIGIL_CRYPTO_UNREADABLE for a
/// block whose base64 or header is broken; VIGIL_CRYPTO_TOO_LONG when the label or contents do
/// not fit.
int vigil_pem_next(const uint8_t *pem, size_t pem_length, size_t *offset, char *label, size_t label_capacity,
                   uint8_t *der, size_t der_capacity, size_t *der_length, char *reason, size_t reason_capacity);

/// The public key of a DER X.509 certificate as a P-256 point. VIGIL_CRYPTO_UNREADABLE for DER
/// that is not a certificate, VIGIL_CRYPTO_NOT_P256 for a certificate with another kind of key.
int vigil_certificate_p256_public_key(const uint8_t *der, size_t der_length, uint8_t point[64], char *reason,
                                      size_t reason_capacity);

/// VIGIL_CRYPTO_OK when the certificate `leaf`'s signature verifies with `issuer`'s public key;
/// VIGIL_CRYPTO_FAILED (with OpenSSL's reason) when it does not; VIGIL_CRYPTO_UNREADABLE when
/// either is not a certificate.
int vigil_certificate_verify(const uint8_t *leaf, size_t leaf_length, const uint8_t *issuer, size_t issuer_length,
                             char *reason, size_t reason_capacity);

/// The private scalar of a DER private key: SEC 1 ("EC PRIVATE KEY") or PKCS #8 ("PRIVATE KEY"),
/// found by OpenSSL's decoder. VIGIL_CRYPTO_NOT_P256 for a key of another type or curve.
int vigil_private_key_p256(const uint8_t *der, size_t der_length, uint8_t scalar[32], char *reason,
                           size_t reason_capacity);

/// ECDSA on P-256 with the private scalar `key` over `digest` (a SHA-256 hash the caller made);
/// the signature as raw r ‖ s, 32 bytes each. The nonce comes from OpenSSL's random generator.
int vigil_ecdsa_p256_sign(const uint8_t key[32], const uint8_t digest[32], uint8_t signature[64], char *reason,
                          size_t reason_capacity);

/// OpenSSL's reason for the first error in this thread's queue (the cause; later entries are the
/// callers that passed it on), or `fallback` when the queue is empty, written NUL-terminated and
/// cut to `capacity` into `reason` (which may be NULL). Empties the queue. Shared with CLibSSL.
void vigil_openssl_reason(char *reason, size_t capacity, const char *fallback);

#endif
