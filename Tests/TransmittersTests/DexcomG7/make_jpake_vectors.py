#!/usr/bin/env python3
"""Fixed EC J-PAKE vectors for the Dexcom G7 tests, from an implementation independent of Vigil's.

Pure Python: P-256 in integer arithmetic (the curve's published constants, affine coordinates,
double-and-add) and hashlib's SHA-256; no OpenSSL, nothing from Vigil's Swift or C. Written from
docs/protocols/dexcom-g7.md §EC J-PAKE on P-256. Prints the Swift vectors file:

    python3 Tests/TransmittersTests/DexcomG7/make_jpake_vectors.py \
        > Tests/TransmittersTests/DexcomG7/DexcomG7JPAKEVectors.swift

Importable (point_add, scalar_mult, round_packet, verify_packet, ...), so other test code can
check its own J-PAKE against it. Not for production: nothing here is constant-time.
"""
import hashlib

# NIST P-256 (SEC 2 v2 §2.4.2; FIPS 186-4 §D.1.2.3).
P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
A = P - 3
B_CURVE = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
G = (0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296,
     0x4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5)
INFINITY = None

CLIENT_PARTY = b"client"
SENSOR_PARTY = bytes([0x37, 0x56, 0x27, 0x67, 0x56, 0x27])
ROUND3_RANDOMIZER = 0xFBC971B837E9491E45A4179ED33865C508A1E0A1D350F5AF0F96370695FDC393


def on_curve(point):
    if point is INFINITY:
        return False
    x, y = point
    return 0 <= x < P and 0 <= y < P and (y * y - (x * x * x + A * x + B_CURVE)) % P == 0


def point_add(p1, p2):
    if p1 is INFINITY:
        return p2
    if p2 is INFINITY:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2 and (y1 + y2) % P == 0:
        return INFINITY
    if p1 == p2:
        slope = (3 * x1 * x1 + A) * pow(2 * y1, -1, P) % P
    else:
        slope = (y2 - y1) * pow(x2 - x1, -1, P) % P
    x3 = (slope * slope - x1 - x2) % P
    return (x3, (slope * (x1 - x3) - y1) % P)


def point_neg(point):
    return INFINITY if point is INFINITY else (point[0], (-point[1]) % P)


def scalar_mult(k, point):
    result, addend = INFINITY, point
    while k:
        if k & 1:
            result = point_add(result, addend)
        addend = point_add(addend, addend)
        k >>= 1
    return result


def point_bytes(point):
    """x ‖ y, 32 bytes each, big-endian: a point as it travels in a packet."""
    return point[0].to_bytes(32, "big") + point[1].to_bytes(32, "big")


def bytes_point(data):
    return (int.from_bytes(data[:32], "big"), int.from_bytes(data[32:64], "big"))


def challenge(base, commitment, public, party):
    """SHA-256 over B, V, X (each 04 ‖ x ‖ y) and the party, each after its 4-byte big-endian length; mod n."""
    transcript = b""
    for field in (b"\x04" + point_bytes(base), b"\x04" + point_bytes(commitment), b"\x04" + point_bytes(public), party):
        transcript += len(field).to_bytes(4, "big") + field
    return int.from_bytes(hashlib.sha256(transcript).digest(), "big") % N


def round_packet(base, private, randomizer, party):
    """The 160-byte packet X ‖ V ‖ z for X = private·base, V = randomizer·base, z = r − c·x mod n."""
    public = scalar_mult(private, base)
    commitment = scalar_mult(randomizer, base)
    c = challenge(base, commitment, public, party)
    z = (randomizer - c * private) % N
    return point_bytes(public) + point_bytes(commitment) + z.to_bytes(32, "big")


def verify_packet(packet, base, party):
    """z·B + c·X == V."""
    public, commitment = bytes_point(packet[0:64]), bytes_point(packet[64:128])
    if not (on_curve(public) and on_curve(commitment)):
        return False
    z = int.from_bytes(packet[128:160], "big")
    c = challenge(base, commitment, public, party)
    return point_add(scalar_mult(z, base), scalar_mult(c, public)) == commitment


def code_secret(code):
    """The pairing code's ASCII digits as one big-endian integer ("1155" -> 0x31313535)."""
    return int.from_bytes(code.encode("ascii"), "big")


def draw(stream):
    """The next private scalar from a list of 32-byte chunks: each read big-endian, skipped while outside [1, n − 2]."""
    while True:
        k = int.from_bytes(stream.pop(0), "big")
        if 1 <= k <= N - 2:
            return k


def session_key(shared_point):
    return hashlib.sha256(shared_point[0].to_bytes(32, "big")).digest()[:16]


def exchange(code, client_stream, sensor_scalars):
    """Both sides of one exchange. The client draws x1, x2, r1, r2 from `client_stream`; the sensor
    uses x3, x4, r3, r4 and its round-3 randomizer r5 from `sensor_scalars`."""
    s = code_secret(code)
    x1, x2, r1, r2 = (draw(client_stream) for _ in range(4))
    x3, x4, r3, r4, r5 = sensor_scalars
    out = {"secret": s}
    out["client_round1"] = round_packet(G, x1, r1, CLIENT_PARTY)
    out["client_round2"] = round_packet(G, x2, r2, CLIENT_PARTY)
    out["sensor_round1"] = round_packet(G, x3, r3, SENSOR_PARTY)
    out["sensor_round2"] = round_packet(G, x4, r4, SENSOR_PARTY)
    X1, X2, X3, X4 = (scalar_mult(k, G) for k in (x1, x2, x3, x4))
    out["client_round1_challenge"] = challenge(G, scalar_mult(r1, G), X1, CLIENT_PARTY)
    # The sensor's round 3: base X1 + X2 + X3, private x4·s.
    sensor_base = point_add(point_add(X1, X2), X3)
    out["sensor_round3"] = round_packet(sensor_base, x4 * s % N, r5, SENSOR_PARTY)
    # Ours: base X1 + X3 + X4, private x2·s, the fixed randomizer.
    client_base = point_add(point_add(X1, X3), X4)
    out["client_round3"] = round_packet(client_base, x2 * s % N, ROUND3_RANDOMIZER, CLIENT_PARTY)
    out["client_round3_challenge"] = challenge(
        client_base, scalar_mult(ROUND3_RANDOMIZER, client_base), scalar_mult(x2 * s % N, client_base), CLIENT_PARTY)
    # K = (B − (x2·s)·X4)·x2 on our side, (A − (x4·s)·X2)·x4 on the sensor's: the same point.
    sensor_b = bytes_point(out["sensor_round3"][:64])
    client_a = bytes_point(out["client_round3"][:64])
    ours = scalar_mult(x2, point_add(sensor_b, point_neg(scalar_mult(x2 * s % N, X4))))
    theirs = scalar_mult(x4, point_add(client_a, point_neg(scalar_mult(x4 * s % N, X2))))
    assert ours == theirs, "both sides must reach the same point"
    assert verify_packet(out["sensor_round3"], sensor_base, SENSOR_PARTY)
    assert verify_packet(out["client_round3"], client_base, CLIENT_PARTY)
    out["shared_x"] = ours[0]
    out["session_key"] = session_key(ours)
    return out


def chunk(label):
    """A fixed 32-byte "random" chunk: SHA-256 of a label."""
    return hashlib.sha256(label.encode()).digest()


# The client's random stream: the first chunk is n itself (out of range, so drawn again), then one
# chunk per scalar. The sensor's scalars are fixed the same way.
CLIENT_STREAM = [N.to_bytes(32, "big")] + [chunk(f"vigil g7 jpake vector client {i}") for i in range(4)]
SENSOR_SCALARS = [int.from_bytes(chunk(f"vigil g7 jpake vector sensor {i}"), "big") % N for i in range(5)]
CODE = "1155"


def swift_bytes(data, indent):
    hex_text = data.hex()
    lines = [hex_text[i:i + 64] for i in range(0, len(hex_text), 64)]
    pad = " " * indent
    if len(lines) == 1:
        return f'[UInt8](hex: "{lines[0]}")'
    return "[UInt8](\n" + pad + "    hex: " + ("\n" + pad + "        + ").join(f'"{line}"' for line in lines) + ")"


def main():
    vectors = exchange(CODE, list(CLIENT_STREAM), SENSOR_SCALARS)
    print("// Generated by Tests/TransmittersTests/DexcomG7/make_jpake_vectors.py (an independent pure-Python")
    print("// P-256 and J-PAKE; docs/crypto.md), with:")
    print("//     python3 Tests/TransmittersTests/DexcomG7/make_jpake_vectors.py \\")
    print("//         > Tests/TransmittersTests/DexcomG7/DexcomG7JPAKEVectors.swift")
    print("// Do not edit: change the script and run it again.")
    print("import Wire")
    print()
    print("/// One exchange with pairing code \"%s\" (docs/protocols/dexcom-g7.md §EC J-PAKE on P-256)." % CODE)
    print("enum DexcomG7JPAKEVectors {")
    print(f'    static let pairingCode = "{CODE}"')
    print("    /// What `random(32)` returns, in order: the first is n (out of range, drawn again), then x1, x2, r1, r2.")
    print("    static let clientRandom: [[UInt8]] = [")
    for data in CLIENT_STREAM:
        print("        " + swift_bytes(data, 8) + ",")
    print("    ]")
    print("    /// The sensor's x3, x4, r3, r4 and its round-3 randomizer.")
    print("    static let sensorScalars: [[UInt8]] = [")
    for k in SENSOR_SCALARS:
        print("        " + swift_bytes(k.to_bytes(32, "big"), 8) + ",")
    print("    ]")
    fields = [
        ("clientRound1", vectors["client_round1"], "Our round 1: X1 ‖ V1 ‖ z1."),
        ("clientRound1Challenge", vectors["client_round1_challenge"].to_bytes(32, "big"),
         "The transcript hash of our round 1, mod n: c1."),
        ("clientRound2", vectors["client_round2"], "Our round 2: X2 ‖ V2 ‖ z2."),
        ("sensorRound1", vectors["sensor_round1"], "The sensor's round 1: X3 ‖ V3 ‖ z3."),
        ("sensorRound2", vectors["sensor_round2"], "The sensor's round 2: X4 ‖ V4 ‖ z4."),
        ("sensorRound3", vectors["sensor_round3"], "The sensor's round 3: B ‖ V ‖ z, base X1 + X2 + X3."),
        ("clientRound3", vectors["client_round3"], "Our round 3: A ‖ V ‖ z, base X1 + X3 + X4, the fixed randomizer."),
        ("clientRound3Challenge", vectors["client_round3_challenge"].to_bytes(32, "big"),
         "The transcript hash of our round 3, mod n."),
        ("sharedX", vectors["shared_x"].to_bytes(32, "big"), "K's x coordinate."),
        ("sessionKey", vectors["session_key"], "The first 16 bytes of SHA-256(K.x)."),
    ]
    for name, data, doc in fields:
        print(f"    /// {doc}")
        print(f"    static let {name} = " + swift_bytes(data, 4))
    print("}")


if __name__ == "__main__":
    main()
