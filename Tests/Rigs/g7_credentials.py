"""Test credentials for the Dexcom G7 certificate exchange, made with `cryptography`.

A real sensor pairs only with a display that presents a certificate chain and signing key from
Dexcom's own app (docs/protocols/dexcom-g7.md §Certificates, signature and bond). The rig
stands in for that trust: at start it makes its own root CA, an intermediate signed by it and
a leaf with a P-256 key, and writes the file Vigil reads (PEM: the intermediate, the leaf, then
the leaf's private key as PKCS#8 "PRIVATE KEY"). It then verifies what a display sends against
that root. The sensor's own certificates and signature are of its own making too.

Shared by `dexcom_g7.py` (makes, writes, verifies) and `check_dexcom_g7_rig.py` (reads, signs).
"""

from __future__ import annotations

import datetime
import os
from dataclasses import dataclass

from cryptography import x509
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature, encode_dss_signature
from cryptography.x509.oid import NameOID

ROOT_NAME = "Vigil Test G7 Root CA"


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Vigil test rigs"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def make_certificate(subject: str, key: ec.EllipticCurvePrivateKey, issuer: x509.Certificate | None,
                     issuer_key: ec.EllipticCurvePrivateKey, ca: bool) -> x509.Certificate:
    """An X.509 v3 certificate for `key`, signed ECDSA/SHA-256 by `issuer_key` (self-signed when
    `issuer` is None), valid from yesterday for ten years."""
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder()
               .subject_name(_name(subject))
               .issuer_name(issuer.subject if issuer is not None else _name(subject))
               .public_key(key.public_key())
               .serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(days=1))
               .not_valid_after(now + datetime.timedelta(days=3650))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    return builder.sign(issuer_key, hashes.SHA256())


def der(certificate: x509.Certificate) -> bytes:
    return certificate.public_bytes(serialization.Encoding.DER)


def new_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


@dataclass
class DisplayCredentials:
    """What the display presents: the intermediate (certificate 0), the leaf (certificate 1)
    and the leaf's private key, which signs the sensor's key challenge."""
    intermediate: x509.Certificate
    leaf: x509.Certificate
    key: ec.EllipticCurvePrivateKey

    def pem(self) -> bytes:
        return (self.intermediate.public_bytes(serialization.Encoding.PEM)
                + self.leaf.public_bytes(serialization.Encoding.PEM)
                + self.key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                         serialization.NoEncryption()))

    def write(self, path: str) -> None:
        """Writes the PEM file with mode 0600 (it holds a private key) from its creation on."""
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(self.pem())
        os.chmod(path, 0o600)  # an existing file keeps its old mode through O_CREAT

    def der(self, index: int) -> bytes:
        return der(self.intermediate if index == 0 else self.leaf)

    @staticmethod
    def read(path: str) -> "DisplayCredentials":
        data = open(path, "rb").read()
        certificates = x509.load_pem_x509_certificates(data)
        key = serialization.load_pem_private_key(data[data.index(b"-----BEGIN PRIVATE KEY-----"):], None)
        assert isinstance(key, ec.EllipticCurvePrivateKey)
        return DisplayCredentials(certificates[0], certificates[1], key)


def make_display_chain(root: x509.Certificate, root_key: ec.EllipticCurvePrivateKey) -> DisplayCredentials:
    intermediate_key, leaf_key = new_key(), new_key()
    intermediate = make_certificate("Vigil Test G7 Intermediate", intermediate_key, root, root_key, ca=True)
    leaf = make_certificate("Vigil Test G7 Display", leaf_key, intermediate, intermediate_key, ca=False)
    return DisplayCredentials(intermediate, leaf, leaf_key)


def make_root() -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    """A self-signed root. Every root made here has the same name, so that a chain from another
    root is told apart by its signature alone, not by an issuer name."""
    key = new_key()
    return make_certificate(ROOT_NAME, key, None, key, ca=True), key


def sign_raw(key: ec.EllipticCurvePrivateKey, message: bytes) -> bytes:
    """ECDSA P-256 over SHA-256, as the raw 64-byte r ‖ s the G7 carries."""
    r, s = decode_dss_signature(key.sign(message, ec.ECDSA(hashes.SHA256())))
    return r.to_bytes(32, "big") + s.to_bytes(32, "big")


def verify_raw(certificate: x509.Certificate, message: bytes, signature: bytes) -> bool:
    """Whether the raw r ‖ s is the certificate key's ECDSA/SHA-256 signature of message."""
    if len(signature) != 64:
        return False
    public = certificate.public_key()
    if not isinstance(public, ec.EllipticCurvePublicKey):
        return False
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        public.verify(der, message, ec.ECDSA(hashes.SHA256()))
        return True
    except InvalidSignature:
        return False


def chain_problem(root: x509.Certificate, ders: dict[int, bytes]) -> tuple[str | None, x509.Certificate | None]:
    """(None, leaf) when certificate 0 is issued by `root` and certificate 1 (a P-256 key) by
    certificate 0; otherwise (why not, None)."""
    parsed = {}
    for index in (0, 1):
        if index not in ders:
            return f"certificate {index} missing", None
        try:
            parsed[index] = x509.load_der_x509_certificate(ders[index])
        except ValueError as error:
            return f"certificate {index} unparsable: {error}", None
    for child, parent, what in ((parsed[0], root, "intermediate not issued by the sensor's root"),
                                (parsed[1], parsed[0], "leaf not issued by the intermediate")):
        try:
            child.verify_directly_issued_by(parent)
        except (ValueError, TypeError, InvalidSignature):
            return what, None
    public = parsed[1].public_key()
    if not isinstance(public, ec.EllipticCurvePublicKey) or public.curve.name != "secp256r1":
        return "leaf key is not P-256", None
    return None, parsed[1]
