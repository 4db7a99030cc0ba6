"""What the Dexcom G6 and G7 rigs share: the same advertised shape, the same CGM service
characteristics, a Control CCCD that needs an encrypted link, and the same link life (logging,
re-advertising after a link ends).

docs/protocols/dexcom-g5-g6.md and docs/protocols/dexcom-g7.md: both families advertise 0xFEBC
and serve F8083532-849E-531C-C594-30F1F86A4EA5.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.metadata
from typing import Callable

from bumble import att, data_types, gatt, hci
from bumble.core import UUID, AdvertisingData
from bumble.device import Connection, Device, DeviceConfiguration
from bumble.keys import MemoryKeyStore
from bumble.pairing import PairingConfig, PairingDelegate

import rig_common
from rig_common import emit

CGM_SERVICE = "F8083532-849E-531C-C594-30F1F86A4EA5"
CONTROL = "F8083534-849E-531C-C594-30F1F86A4EA5"
AUTHENTICATION = "F8083535-849E-531C-C594-30F1F86A4EA5"
BACKFILL = "F8083536-849E-531C-C594-30F1F86A4EA5"
ATT_INSUFFICIENT_AUTHENTICATION = 0x05
ATT_INSUFFICIENT_ENCRYPTION = 0x0F


def add_drop_at(parser, steps: tuple[str, ...], where: str) -> None:
    """`--drop-at STEP,...`: the fault switch both rigs share, `where` saying whose steps."""
    parser.add_argument("--drop-at", default="", type=lambda text: _drop_steps(text, steps),
                        help=f"comma-separated {where} steps where the rig drops the link once: "
                             + ", ".join(steps))


def _drop_steps(text: str, steps: tuple[str, ...]) -> str:
    unknown = [step for step in text.split(",") if step and step not in steps]
    if unknown:
        raise argparse.ArgumentTypeError(f"takes steps among {', '.join(steps)}")
    return text


def just_works(delegate: PairingDelegate | None = None) -> PairingConfig:
    """LE Secure Connections Just Works with bonding, as both transmitters pair."""
    return PairingConfig(sc=True, mitm=False, bonding=True, delegate=delegate or PairingDelegate(
        io_capability=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT))


def make_device(host, advertised_name: str, gap_name: str, address: str) -> Device:
    """A peripheral advertising 0xFEBC and `advertised_name` every 100 ms, bonding in memory."""
    config = DeviceConfiguration()
    config.name = gap_name
    config.address = hci.Address(address, hci.Address.RANDOM_DEVICE_ADDRESS)
    config.advertising_data = bytes(AdvertisingData([
        data_types.Flags(AdvertisingData.Flags.LE_GENERAL_DISCOVERABLE_MODE
                         | AdvertisingData.Flags.BR_EDR_NOT_SUPPORTED),
        data_types.CompleteListOf16BitServiceUUIDs([UUID.from_16_bits(0xFEBC)]),
        data_types.CompleteLocalName(advertised_name),
    ]))
    config.scan_response_data = b""
    config.advertising_interval_min = 100
    config.advertising_interval_max = 100
    device = Device(config=config, host=host)
    device.keystore = MemoryKeyStore()  # in memory only (docs/bumble-peer.md)
    device.pairing_config_factory = lambda _connection: just_works()
    return device


def bonded(device: Device, connection) -> bool:
    return str(connection.peer_address) in device.keystore.all_keys


def encryption_refusal(device: Device, connection) -> int | None:
    """None on an encrypted link; else the ATT error a Zephyr peripheral answers: Insufficient
    Authentication without a bond, Insufficient Encryption with one (Tests/Rigs/README.md)."""
    if connection.encryption:
        return None
    return ATT_INSUFFICIENT_ENCRYPTION if bonded(device, connection) else ATT_INSUFFICIENT_AUTHENTICATION


def protected_cccd(device: Device, characteristic: gatt.Characteristic) -> gatt.Descriptor:
    """Control's CCCD: only a bonded, encrypted central subscribes.

    docs/protocols/dexcom-g5-g6.md §Authentication, "When pairing is needed".
    """
    server = device.gatt_server

    def write(bearer, value: bytes) -> None:
        code = encryption_refusal(device, bearer)
        if code is not None:
            emit({"event": "cccd-refused", "characteristic": "control", "attError": code})
            raise att.ATT_Error(error_code=code)
        server.write_cccd(bearer, characteristic, value)

    return gatt.Descriptor(
        gatt.GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR,
        att.Attribute.READABLE | att.Attribute.WRITEABLE,
        att.AttributeValueV2(read=lambda bearer: server.read_cccd(bearer, characteristic), write=write))


def log_subscriptions(labelled: list[tuple[gatt.Characteristic, str]]) -> None:
    """`{"event":"subscribed",...}` whenever a central writes one of these CCCDs."""
    for characteristic, label in labelled:
        characteristic.on(gatt.Characteristic.EVENT_SUBSCRIPTION,
                          lambda bearer, notify, indicate, label=label: emit(
                              {"event": "subscribed", "peer": str(bearer.peer_address),
                               "characteristic": label, "notify": notify, "indicate": indicate}))


def log_security(connection: Connection, peer: str, on_pairing: Callable[[], None] | None = None,
                 on_encryption: Callable[[], None] | None = None) -> None:
    """`paired`, `pairing-failed`, `encrypted`/`encryption-off` for one link."""
    def paired(_keys) -> None:
        emit({"event": "paired", "peer": peer, "secureConnections": bool(connection.sc)})
        if on_pairing:
            on_pairing()

    def encryption() -> None:
        if on_encryption:
            on_encryption()
        emit({"event": "encrypted" if connection.encryption else "encryption-off", "peer": peer})

    connection.on(connection.EVENT_PAIRING, paired)
    connection.on(connection.EVENT_PAIRING_FAILURE, lambda reason: emit(
        {"event": "pairing-failed", "peer": peer, "reason": int(reason)}))
    connection.on(connection.EVENT_CONNECTION_ENCRYPTION_CHANGE, encryption)


async def readvertise(device: Device, delay: float, clock: Callable[[], dict]) -> None:
    """Advertises again `delay` real seconds after a link ended; `clock()` joins the event
    (the transmitter's time then)."""
    await asyncio.sleep(delay)
    try:
        await device.start_advertising(auto_restart=False)
        emit({"event": "advertising", **clock()})
    except Exception as error:
        emit({"event": "advertising-failed", "error": repr(error)})


async def disconnect(connection: Connection) -> None:
    """Ends a link from the transmitter's side; it may already be gone."""
    try:
        await connection.disconnect()
    except Exception as error:
        emit({"event": "disconnect-failed", "error": repr(error)})


async def serve(args: argparse.Namespace, name: str, make: Callable, announce: Callable[[object], dict]) -> None:
    """Runs a transmitter rig until it is stopped: `make(rig)` builds the transmitter (with its
    `.device` and `.readvertising`), `announce(transmitter)` the fields of the `{"rig":...}`
    line, printed with the port and Bumble's version before advertising starts and `READY <port>`."""
    rig_common.setup_logging(args.verbose)
    rig = rig_common.Rig(args, name)
    rig.install_lifecycle()
    transmitter = make(rig)
    port = await rig.start_hci_server()
    emit({"rig": name, "port": port, **announce(transmitter), "bumble": importlib.metadata.version("bumble")})
    await transmitter.device.power_on()
    await transmitter.device.start_advertising(auto_restart=False)
    rig.ready(port)
    await rig.wait_until_stopped()
    if transmitter.readvertising is not None:
        transmitter.readvertising.cancel()  # a pending cycle must not outlive the rig
