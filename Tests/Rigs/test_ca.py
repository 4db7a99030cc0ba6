"""A test certificate authority and server certificates for the network rigs
(`nightscout_server.py`, `follow_server.py`), made with `cryptography` (pinned in
scripts/bumble-env.sh). Nothing here is shared with Vigil's OpenSSL code.

    PY=$(scripts/bumble-env.sh | tail -n1)
    $PY Tests/Rigs/test_ca.py --out DIR --name share2.dexcom.com --name api.libreview.io ...

writes into DIR (PEM; keys are P-256, mode 0600):

| file | what it is | what a verifying client must do |
|---|---|---|
| `ca.pem` | the test root (give it to Vigil as `[network] ca-file`) | trust it |
| `server.pem`, `server.key` | a leaf for every `--name`, `localhost` and 127.0.0.1, signed by the root | accept it |
| `wrong-name.pem`, `.key` | signed by the root, but only for `wrong-name.invalid` | refuse: host name |
| `expired.pem`, `.key` | signed by the root for every name, expired yesterday | refuse: expired |
| `impostor-ca.pem` | another root with the same subject as `ca.pem` | (not trusted) |
| `impostor.pem`, `.key` | a leaf for every name, signed by the impostor | refuse: unknown issuer |

Every file is made afresh on each call (the names may differ between calls). The leaves carry
the extensions a strict verifier (OpenSSL's X509_STRICT, Python 3.13's default) insists on:
Subject and Authority Key Identifiers, basic constraints, key usage, serverAuth.
"""

from __future__ import annotations

import argparse
import datetime
import ipaddress
import os
import sys

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CA_NAME = "Vigil network rigs test root"
WRONG_NAME = "wrong-name.invalid"


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Vigil test rigs"),
                      x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _write(path: str, data: bytes) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "wb") as f:
        f.write(data)


def _pem_key(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption())


def _root(now: datetime.datetime) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key()
    cert = (x509.CertificateBuilder()
            .subject_name(_name(CA_NAME)).issuer_name(_name(CA_NAME))
            .public_key(public).serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=30))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=True, crl_sign=True,
                                         content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
            .sign(key, hashes.SHA256()))
    return cert, key


def _leaf(names: list[str], issuer: x509.Certificate, issuer_key: ec.EllipticCurvePrivateKey,
          not_before: datetime.datetime, not_after: datetime.datetime
          ) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    public = key.public_key()
    alternatives: list[x509.GeneralName] = []
    for name in names:
        try:
            alternatives.append(x509.IPAddress(ipaddress.ip_address(name)))
        except ValueError:
            alternatives.append(x509.DNSName(name))
    cert = (x509.CertificateBuilder()
            .subject_name(_name(names[0])).issuer_name(issuer.subject)
            .public_key(public).serial_number(x509.random_serial_number())
            .not_valid_before(not_before).not_valid_after(not_after)
            .add_extension(x509.SubjectAlternativeName(alternatives), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.KeyUsage(digital_signature=True, key_cert_sign=False, crl_sign=False,
                                         content_commitment=False, key_encipherment=False,
                                         data_encipherment=False, key_agreement=False,
                                         encipher_only=False, decipher_only=False), critical=True)
            .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(public), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer_key.public_key()),
                           critical=False)
            .sign(issuer_key, hashes.SHA256()))
    return cert, key


def make(directory: str, names: list[str]) -> dict[str, str]:
    """Writes the files above into `directory` (made if missing) for `names` (plus localhost and
    127.0.0.1); returns {kind: path} for `ca`, `server`, `server-key`, `wrong-name`,
    `wrong-name-key`, `expired`, `expired-key`, `impostor-ca`, `impostor`, `impostor-key`."""
    os.makedirs(directory, exist_ok=True)
    now = datetime.datetime.now(datetime.timezone.utc)
    every = list(dict.fromkeys([*names, "localhost", "127.0.0.1"]))
    root, root_key = _root(now)
    impostor_root, impostor_key = _root(now)
    valid = (now - datetime.timedelta(days=1), now + datetime.timedelta(days=30))
    leaves = {
        "server": _leaf(every, root, root_key, *valid),
        "wrong-name": _leaf([WRONG_NAME], root, root_key, *valid),
        "expired": _leaf(every, root, root_key, now - datetime.timedelta(days=10),
                         now - datetime.timedelta(days=1)),
        "impostor": _leaf(every, impostor_root, impostor_key, *valid),
    }
    paths = {"ca": os.path.join(directory, "ca.pem"),
             "impostor-ca": os.path.join(directory, "impostor-ca.pem")}
    _write(paths["ca"], root.public_bytes(serialization.Encoding.PEM))
    _write(paths["impostor-ca"], impostor_root.public_bytes(serialization.Encoding.PEM))
    for kind, (cert, key) in leaves.items():
        paths[kind] = os.path.join(directory, f"{kind}.pem")
        paths[f"{kind}-key"] = os.path.join(directory, f"{kind}.key")
        _write(paths[kind], cert.public_bytes(serialization.Encoding.PEM))
        _write(paths[f"{kind}-key"], _pem_key(key))
    return paths


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True, help="directory to write into")
    parser.add_argument("--name", action="append", default=[], help="a host name for the leaves (repeatable)")
    args = parser.parse_args()
    for kind, path in make(args.out, args.name or ["localhost"]).items():
        print(f"{kind}\t{path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
