"""EC J-PAKE on P-256 as the Dexcom G7 family runs it: the test side's own implementation.

Written from docs/protocols/dexcom-g7.md §EC J-PAKE on P-256 alone, in plain Python integer
arithmetic and hashlib, so that it shares nothing with Vigil's own (OpenSSL) implementation:
the sensor rig (`dexcom_g7.py`) plays one party and its checker (`check_dexcom_g7_rig.py`) the
other. Both are the test side; Vigil's Swift code is the independent one they are checked
against.

- `Party(code, own, peer)`: one side of the exchange. `packet(k)` is our 160-byte packet of
  round k (0, 1: the two key pairs; 2: the combined round, "round 3" in the doc), `receive(k,
  packet)` takes the peer's and says whether its proof verified, `session_key()` the 16 bytes.
- A packet is `X ‖ V ‖ z`: the public point, the Schnorr commitment (each x ‖ y, 32 bytes
  big-endian) and the proof scalar z = r − c·x mod n.
"""

from __future__ import annotations

import hashlib
import secrets
import struct

# NIST P-256 (SEC 2 §2.4.2; FIPS 186-4 §D.1.2.3): y² = x³ − 3x + b over GF(p), order n.
P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
A = P - 3
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
     0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)

# The display's party identifier and the sensor's (docs/protocols/dexcom-g7.md).
CLIENT_PARTY = b"client"
SENSOR_PARTY = bytes.fromhex("375627675627")
# The display's fixed round-3 randomizer, which the sensor reproduces (same section).
ROUND3_RANDOMIZER = 0xFBC971B837E9491E45A4179ED33865C508A1E0A1D350F5AF0F96370695FDC393
PACKET_LENGTH = 160

Point = tuple[int, int] | None  # None: the point at infinity


# -- curve arithmetic: Jacobian coordinates inside, affine tuples outside ----------------------

def _double(p: tuple[int, int, int]) -> tuple[int, int, int]:
    x, y, z = p
    if y == 0 or z == 0:
        return (0, 1, 0)
    # a = −3: M = 3(x − z²)(x + z²)
    zz = z * z % P
    m = 3 * (x - zz) * (x + zz) % P
    yy = y * y % P
    s = 4 * x * yy % P
    x3 = (m * m - 2 * s) % P
    y3 = (m * (s - x3) - 8 * yy * yy) % P
    z3 = 2 * y * z % P
    return (x3, y3, z3)


def _add(p: tuple[int, int, int], q: tuple[int, int, int]) -> tuple[int, int, int]:
    if p[2] == 0:
        return q
    if q[2] == 0:
        return p
    x1, y1, z1 = p
    x2, y2, z2 = q
    z1z1 = z1 * z1 % P
    z2z2 = z2 * z2 % P
    u1 = x1 * z2z2 % P
    u2 = x2 * z1z1 % P
    s1 = y1 * z2 * z2z2 % P
    s2 = y2 * z1 * z1z1 % P
    if u1 == u2:
        return _double(p) if s1 == s2 else (0, 1, 0)
    h = (u2 - u1) % P
    r = (s2 - s1) % P
    hh = h * h % P
    hhh = h * hh % P
    v = u1 * hh % P
    x3 = (r * r - hhh - 2 * v) % P
    y3 = (r * (v - x3) - s1 * hhh) % P
    z3 = h * z1 * z2 % P
    return (x3, y3, z3)


def _jacobian(point: Point) -> tuple[int, int, int]:
    return (0, 1, 0) if point is None else (point[0], point[1], 1)


def _affine(p: tuple[int, int, int]) -> Point:
    if p[2] == 0:
        return None
    inverse = pow(p[2], -1, P)
    ii = inverse * inverse % P
    return (p[0] * ii % P, p[1] * ii * inverse % P)


def add(p: Point, q: Point) -> Point:
    return _affine(_add(_jacobian(p), _jacobian(q)))


def negate(p: Point) -> Point:
    return None if p is None else (p[0], (-p[1]) % P)


def multiply(k: int, point: Point) -> Point:
    """k·point by double-and-add (not constant time: this is test code, never a secret's home)."""
    k %= N
    result = (0, 1, 0)
    addend = _jacobian(point)
    while k:
        if k & 1:
            result = _add(result, addend)
        addend = _double(addend)
        k >>= 1
    return _affine(result)


def on_curve(point: Point) -> bool:
    if point is None:
        return False
    x, y = point
    return 0 <= x < P and 0 <= y < P and (y * y - (x * x * x + A * x + B)) % P == 0


def encode(point: Point) -> bytes:
    """x ‖ y, 32 bytes each, big-endian (the packet form)."""
    assert point is not None
    return point[0].to_bytes(32, "big") + point[1].to_bytes(32, "big")


def decode(data: bytes) -> Point:
    point = (int.from_bytes(data[:32], "big"), int.from_bytes(data[32:64], "big"))
    if not on_curve(point):
        raise ValueError("point is not on P-256")
    return point


# -- the proof ---------------------------------------------------------------------------------

def challenge(base: Point, commitment: Point, public: Point, party: bytes) -> int:
    """c = SHA-256 over B, V, X (each `04 ‖ x ‖ y`) and the prover's party identifier, each
    preceded by its length as a 4-byte big-endian integer, reduced mod n."""
    digest = hashlib.sha256()
    for element in (b"\x04" + encode(base), b"\x04" + encode(commitment), b"\x04" + encode(public), party):
        digest.update(struct.pack(">I", len(element)) + element)
    return int.from_bytes(digest.digest(), "big") % N


def random_scalar() -> int:
    """Uniform in [1, n − 2], as the doc draws private keys."""
    return 1 + secrets.randbelow(N - 2)


def prove(base: Point, private: int, party: bytes, randomizer: int | None = None) -> bytes:
    """The 160-byte packet `X ‖ V ‖ z` proving knowledge of `private` for X = private·base."""
    public = multiply(private, base)
    r = randomizer if randomizer is not None else random_scalar()
    commitment = multiply(r, base)
    c = challenge(base, commitment, public, party)
    z = (r - c * private) % N
    return encode(public) + encode(commitment) + z.to_bytes(32, "big")


def verify(base: Point, packet: bytes, party: bytes) -> bool:
    """z·B + c·X = V for the packet's X, V and z."""
    try:
        public, commitment = decode(packet[:64]), decode(packet[64:128])
    except ValueError:
        return False
    z = int.from_bytes(packet[128:160], "big")
    c = challenge(base, commitment, public, party)
    return add(multiply(z, base), multiply(c, public)) == commitment


def secret_from_code(code: str) -> int:
    """The pairing code's ASCII digits read as one big-endian integer ("1155" → 0x31313535)."""
    return int.from_bytes(code.encode("ascii"), "big")


class Party:
    """One side of the G7 exchange: `own`/`peer` are the party identifiers (CLIENT_PARTY or
    SENSOR_PARTY); `round3_randomizer` fixes the combined round's commitment (the display's
    ROUND3_RANDOMIZER), or None for a fresh one."""

    def __init__(self, code: str, own: bytes, peer: bytes, round3_randomizer: int | None = None) -> None:
        self.secret = secret_from_code(code)
        self.own = own
        self.peer = peer
        self.round3_randomizer = round3_randomizer
        self.x1, self.x2 = random_scalar(), random_scalar()
        self.X1, self.X2 = multiply(self.x1, G), multiply(self.x2, G)
        self.peer_points: dict[int, Point] = {}  # round -> the peer's public point

    def combined_base_own(self) -> Point:
        """Our round-3 base: our first public key and both of the peer's."""
        return add(add(self.X1, self.peer_points[0]), self.peer_points[1])

    def combined_base_peer(self) -> Point:
        """The peer's round-3 base: its first public key and both of ours."""
        return add(add(self.peer_points[0], self.X1), self.X2)

    def packet(self, round_index: int) -> bytes:
        if round_index == 0:
            return prove(G, self.x1, self.own)
        if round_index == 1:
            return prove(G, self.x2, self.own)
        return prove(self.combined_base_own(), self.x2 * self.secret % N, self.own, self.round3_randomizer)

    def receive(self, round_index: int, packet: bytes) -> bool:
        """Stores the peer's public point of the round; true when its proof verifies (the doc
        makes this advisory: the session key does not depend on it)."""
        if len(packet) != PACKET_LENGTH:
            raise ValueError(f"a J-PAKE packet is {PACKET_LENGTH} bytes, got {len(packet)}")
        self.peer_points[round_index] = decode(packet[:64])
        base = G if round_index < 2 else self.combined_base_peer()
        return verify(base, packet, self.peer)

    def peer_used_randomizer(self, packet: bytes, randomizer: int) -> bool:
        """Whether the peer's round-3 commitment is `randomizer`·(its base)."""
        return packet[64:128] == encode(multiply(randomizer, self.combined_base_peer()))

    def session_key(self) -> bytes:
        """K = (B − (x2·s)·X4)·x2; the key is the first 16 bytes of SHA-256(x(K))."""
        peer_combined = self.peer_points[2]
        shared = multiply(self.x2, add(peer_combined,
                                       negate(multiply(self.x2 * self.secret % N, self.peer_points[1]))))
        assert shared is not None
        return hashlib.sha256(shared[0].to_bytes(32, "big")).digest()[:16]
