"""A Security Manager that misbehaves on purpose, for `hostile_peers.py --scenario pairing-failures`.

It replaces a Bumble Device's SMP handling (Core v5.4 Vol 3 Part H) for one hostile peripheral
and answers each pairing attempt with the next misdeed of a list, cycling:

- `reject-request`: Pairing Failed (0x05 Pairing Not Supported) in answer to the Pairing Request;
- `fail-after-public-key`: a proper Pairing Response (LE Secure Connections, Just Works), then
  Pairing Failed (0x08 Unspecified Reason) in answer to the central's Public Key;
- `wrong-confirm`: Pairing Response, our (valid P-256) Public Key, then a Pairing Confirm that
  does not match the Pairing Random we send afterwards (the central must fail with 0x04
  Confirm Value Failed, Vol 3 Part H 2.3.5.6.2);
- `silent`: no answer at all (the central's 30 s SMP timeout, Vol 3 Part H 3.4).

Every step is logged as `{"hostile":"smp",...}`. Written from the spec's PDU tables (Vol 3
Part H 3.5 and 3.6), not from Bumble's SMP implementation, whose behaviour it replaces.
"""

from __future__ import annotations

import os
from typing import Any

from bumble import crypto

SMP_CID = 0x0006
PAIRING_REQUEST = 0x01
PAIRING_RESPONSE = 0x02
PAIRING_CONFIRM = 0x03
PAIRING_RANDOM = 0x04
PAIRING_FAILED = 0x05
PAIRING_PUBLIC_KEY = 0x0C
PAIRING_NOT_SUPPORTED = 0x05
UNSPECIFIED_REASON = 0x08
FAULTS = ("reject-request", "fail-after-public-key", "wrong-confirm", "silent")


class MisbehavingSecurityManager:
    def __init__(self, peer: Any, faults: list[str]) -> None:
        unknown = [fault for fault in faults if fault not in FAULTS]
        if unknown or not faults:
            raise SystemExit(f"--pairing-faults: unknown {unknown}; choose from {FAULTS}")
        self.peer = peer  # a HostilePeripheral: .device, .log
        self.faults = faults
        self.attempts = 0
        self.fault_of: dict[int, str] = {}  # connection handle -> this attempt's misdeed
        self.key = crypto.EccKey.generate()

    def send(self, connection, pdu: bytes) -> None:
        self.peer.device.host.send_l2cap_pdu(connection.handle, SMP_CID, pdu)

    def on_smp_pdu(self, connection, pdu: bytes) -> None:
        code = pdu[0] if pdu else None
        if code == PAIRING_REQUEST:
            fault = self.faults[self.attempts % len(self.faults)]
            self.attempts += 1
            self.fault_of[connection.handle] = fault
            self.peer.log("smp", step="pairing-request", fault=fault, attempt=self.attempts)
            if fault == "reject-request":
                self.send(connection, bytes([PAIRING_FAILED, PAIRING_NOT_SUPPORTED]))
            elif fault != "silent":
                # IO capability NoInputNoOutput, no OOB, AuthReq Bonding|SC, 16-byte keys, no
                # keys distributed (Vol 3 Part H 3.5.2).
                self.send(connection, bytes([PAIRING_RESPONSE, 0x03, 0x00, 0x09, 16, 0x00, 0x00]))
            return
        fault = self.fault_of.get(connection.handle, "silent")
        if code == PAIRING_PUBLIC_KEY:
            self.peer.log("smp", step="public-key", fault=fault)
            if fault == "fail-after-public-key":
                self.send(connection, bytes([PAIRING_FAILED, UNSPECIFIED_REASON]))
            elif fault == "wrong-confirm":
                self.send(connection, bytes([PAIRING_PUBLIC_KEY]) + self.key.x[::-1] + self.key.y[::-1])
                # Cb should be f4(PKbx, PKax, Nb, 0); this one is 16 random bytes.
                self.send(connection, bytes([PAIRING_CONFIRM]) + os.urandom(16))
        elif code == PAIRING_RANDOM:
            self.peer.log("smp", step="random", fault=fault)
            if fault == "wrong-confirm":
                self.send(connection, bytes([PAIRING_RANDOM]) + os.urandom(16))
        elif code == PAIRING_FAILED:
            self.peer.log("smp", step="central-failed", fault=fault,
                          reason=pdu[1] if len(pdu) > 1 else None)
        else:
            self.peer.log("smp", step="other", code=code, fault=fault)
