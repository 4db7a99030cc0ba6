#!/usr/bin/env python3
"""Simulated Bluetooth LE blood glucose meter: an independent peer for Vigil's interop tests.

One process: a Bumble LocalLink with controller EXT (H4 over TCP, what Vigil connects to with
`--hci tcp:127.0.0.1:PORT`) and a peripheral (controller PERIPH + Bumble Host + Device) that
advertises 0x1808 and serves:

- Glucose 0x1808 (GLS 1.0): Glucose Measurement 0x2A18 (notify), Glucose Measurement Context
  0x2A34 (notify), Glucose Feature 0x2A51 (read), Record Access Control Point 0x2A52 (write +
  indicate);
- Battery 0x180F: Battery Level 0x2A19 (read);
- Device Information 0x180A: manufacturer and model strings.

Pairing as real meters require it (Accu-Chek Guide, Contour Next One): the measurement,
context and RACP CCCDs and RACP writes are refused on an unencrypted link, with ATT 0x05
Insufficient Authentication before a bond exists and 0x0F Insufficient Encryption after.
Pairing is LE Secure Connections Just Works with bonding; bonds live in memory only.

Records: `--records N` stored records, sequence numbers `--first-sequence` upwards, one every
`--record-spacing-min` minutes back from 2026-11-22 07:30:00 (meter local time). They cycle
through shapes written from the GATT XML definitions (not a library): kg/L with and without a
time offset, one in mol/L, one with sensor status "battery low", one with a Measurement Context
(carbohydrate, meal, tester/health, exercise, medication, HbA1c).

RACP (record_access_control_point.xml): op 1 report stored records with operators 1 all,
2 <=, 3 >=, 4 within range, 5 first, 6 last (filter type 0x01 sequence number); op 3 abort;
op 4 report number of records (answered by op 5); anything else is refused with op 6 and the
matching response code. Records go out as notifications, then the response code indication.
`--stall-after K` sends only K records of a report and then goes silent (no response), for
procedure-timeout tests; an abort then ends the procedure with success.

`--reset-at-connection N` makes the meter "reset" as the N-th connection begins (a battery
change, a factory reset, or another meter under the same label): its records are replaced by
`--records-after-reset M` new ones numbered from 1 again, dated one day later than the first
set, so record #1 of the new run is not record #1 of the old one.

stdout: `{"rig":...}` once, `READY <port>` once advertising, then NDJSON lines:
  {"sent":"glucose-measurement","peer":ADDR,"request":HEX,"seq":N,"hex":..,"mgdl":..,"localTime":"...",
   "recordTime":"..." (base time + time offset),...}
  {"sent":"glucose-context","peer":ADDR,"seq":N,"hex":..}
  {"sent":"racp","peer":ADDR,"hex":..}          (every indication)
  {"received":"racp","peer":ADDR,"hex":..}      (every write, including refused ones)
  {"event":"connected"|"disconnected"|"paired"|"encrypted"|"subscribed"|"cccd-refused"|...}
  {"event":"reset","records":[...]}             (--reset-at-connection)

Example: glucose_meter.py --port 0 --records 5
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import importlib.metadata
import struct
import sys

from bumble import att, data_types, gatt, hci
from bumble.core import UUID, AdvertisingData
from bumble.device import Connection, Device, DeviceConfiguration
from bumble.keys import MemoryKeyStore
from bumble.pairing import PairingConfig, PairingDelegate

import rig_common
from rig_common import emit

# Appearance 0x0400 (1024): Generic Glucose Meter (Assigned Numbers 2.6.2, category 0x010).
APPEARANCE_GLUCOSE_METER = 1024

GLUCOSE_MEASUREMENT = UUID.from_16_bits(0x2A18, "Glucose Measurement")
GLUCOSE_CONTEXT = UUID.from_16_bits(0x2A34, "Glucose Measurement Context")
GLUCOSE_FEATURE = UUID.from_16_bits(0x2A51, "Glucose Feature")
RACP_UUID = UUID.from_16_bits(0x2A52, "Record Access Control Point")

ATT_INSUFFICIENT_AUTHENTICATION = 0x05
ATT_INSUFFICIENT_ENCRYPTION = 0x0F

# RACP (record_access_control_point.xml).
OP_REPORT, OP_DELETE, OP_ABORT, OP_COUNT, OP_COUNT_RESPONSE, OP_RESPONSE = 1, 2, 3, 4, 5, 6
OPER_NULL, OPER_ALL, OPER_LE, OPER_GE, OPER_RANGE, OPER_FIRST, OPER_LAST = 0, 1, 2, 3, 4, 5, 6
RC_SUCCESS, RC_OPCODE_NOT_SUPPORTED, RC_INVALID_OPERATOR, RC_OPERATOR_NOT_SUPPORTED = 1, 2, 3, 4
RC_INVALID_OPERAND, RC_NO_RECORDS, RC_ABORT_UNSUCCESSFUL, RC_NOT_COMPLETED = 5, 6, 7, 8
RC_OPERAND_NOT_SUPPORTED = 9
FILTER_SEQUENCE_NUMBER = 0x01

BASE_LOCAL_TIME = datetime.datetime(2026, 11, 22, 7, 30, 0)


def sfloat(mantissa: int, exponent: int) -> int:
    """IEEE 11073-20601 SFLOAT bits: 4-bit exponent, 12-bit mantissa, both two's complement."""
    assert -2048 < mantissa < 2046 and -8 <= exponent <= 7
    return ((exponent & 0x0F) << 12) | (mantissa & 0x0FFF)


def date_time(moment: datetime.datetime) -> bytes:
    """Date Time 0x2A08: u16 year, month, day, hours, minutes, seconds."""
    return struct.pack("<HBBBBB", moment.year, moment.month, moment.day,
                       moment.hour, moment.minute, moment.second)


class Record:
    """One stored meter record: the measurement bytes, and the context bytes if any."""

    def __init__(self, index: int, sequence: int, spacing_min: int, base: datetime.datetime = BASE_LOCAL_TIME) -> None:
        self.sequence = sequence
        self.local_time = base - datetime.timedelta(minutes=spacing_min * index)
        shape = index % 5
        self.mgdl = 90 + (index * 23) % 140       # 90..229 mg/dL, different each record
        flags = 0x02                                # concentration + type/location
        offset_min = None
        status = None
        self.context: bytes | None = None
        if shape == 1:
            offset_min = -15                        # the meter's clock was adjusted
            flags |= 0x01
        if shape == 2:
            flags |= 0x04                           # mol/L: mg/dL / 18.0182, in 10^-5 mol/L
            mmol_hundredths = round(self.mgdl / 18.0182 * 100)
            concentration = sfloat(mmol_hundredths, -5)
            self.mgdl = mmol_hundredths / 100 * 18.0182
        else:
            concentration = sfloat(self.mgdl, -5)   # kg/L: 1 mg/dL = 1e-5 kg/L
        if shape == 3:
            flags |= 0x08
            status = 0x0001                         # battery low: the value stays valid
        if shape == 4:
            flags |= 0x10
            # Context, every flag (glucose_measurement_context.xml): extended flags 0, carbs
            # breakfast 0.05 kg, meal preprandial, tester 1 self / health 15 not available (0xF1),
            # exercise 1800 s at 40 %, medication rapid-acting 0.004 l (bit 5), HbA1c 6.5 %.
            self.context = (bytes([0xFF]) + struct.pack("<H", sequence) + bytes([0x00, 0x01])
                            + struct.pack("<H", sfloat(5, -2)) + bytes([0x01, 0xF1])
                            + struct.pack("<HB", 1800, 40) + bytes([0x01])
                            + struct.pack("<H", sfloat(4, -3)) + struct.pack("<H", sfloat(65, -1)))
        value = bytearray([flags]) + struct.pack("<H", sequence) + date_time(self.local_time)
        if offset_min is not None:
            value += struct.pack("<h", offset_min)
        # Type 1 capillary whole blood (low nibble), location 1 finger (high nibble).
        value += struct.pack("<HB", concentration, 0x11)
        if status is not None:
            value += struct.pack("<H", status)
        self.value = bytes(value)
        self.offset_min = offset_min
        self.shape = shape

    def log(self) -> dict:
        record = {"seq": self.sequence, "hex": self.value.hex(), "mgdl": round(self.mgdl, 3),
                  "localTime": self.local_time.isoformat(), "shape": self.shape}
        if self.offset_min is not None:
            record["timeOffsetMin"] = self.offset_min
        # The record's own date as the meter states it: base time + time offset (GLS).
        record["recordTime"] = (self.local_time + datetime.timedelta(minutes=self.offset_min or 0)).isoformat()
        return record


class GlucoseMeter:
    def __init__(self, args: argparse.Namespace, rig: rig_common.Rig) -> None:
        self.args = args
        self.rig = rig
        self.records = self.make_records(args.records, args.first_sequence, BASE_LOCAL_TIME)
        self.connections = 0
        self.procedure: asyncio.Task | None = None
        # True from a report request until its final response is *sent*: the indication's
        # confirmation may arrive after the collector's next write, which is then legitimate.
        self.in_progress = False
        self.stalled = False

        config = DeviceConfiguration()
        config.name = args.name
        config.address = hci.Address(args.address, hci.Address.RANDOM_DEVICE_ADDRESS)
        config.advertising_data = bytes(AdvertisingData([
            data_types.Flags(AdvertisingData.Flags.LE_GENERAL_DISCOVERABLE_MODE
                             | AdvertisingData.Flags.BR_EDR_NOT_SUPPORTED),
            data_types.CompleteListOf16BitServiceUUIDs([gatt.GATT_GLUCOSE_SERVICE]),
            data_types.Appearance.from_int(APPEARANCE_GLUCOSE_METER),
            data_types.CompleteLocalName(args.name),
        ]))
        if len(config.advertising_data) > 31:
            sys.exit("advertising data is longer than 31 bytes: shorten --name")
        config.scan_response_data = b""
        config.advertising_interval_min = 100.0
        config.advertising_interval_max = 100.0
        self.device = Device(config=config, host=rig.host)
        self.device.keystore = MemoryKeyStore()
        self.device.pairing_config_factory = lambda _connection: PairingConfig(
            sc=True, mitm=False, bonding=True,
            delegate=PairingDelegate(io_capability=PairingDelegate.IoCapability.NO_OUTPUT_NO_INPUT))
        self.device.on(Device.EVENT_CONNECTION, self.on_connection)
        self.build_gatt()

    def make_records(self, count: int, first_sequence: int, base: datetime.datetime) -> list[Record]:
        records = [Record(i, first_sequence + count - 1 - i, self.args.record_spacing_min, base) for i in range(count)]
        records.sort(key=lambda r: r.sequence)
        return records

    # -- security ----------------------------------------------------------------------------
    def refuse_unless_encrypted(self, connection: Connection, what: str) -> None:
        if connection.encryption:
            return
        bonded = str(connection.peer_address) in self.device.keystore.all_keys
        code = ATT_INSUFFICIENT_ENCRYPTION if bonded else ATT_INSUFFICIENT_AUTHENTICATION
        emit({"event": f"{what}-refused", "peer": str(connection.peer_address), "attError": code})
        raise att.ATT_Error(error_code=code)

    def protected_cccd(self, characteristic: gatt.Characteristic, name: str) -> gatt.Descriptor:
        server = self.device.gatt_server

        def write(bearer, value: bytes) -> None:
            self.refuse_unless_encrypted(bearer, "cccd")
            server.write_cccd(bearer, characteristic, value)
            emit({"event": "subscribed", "peer": str(bearer.peer_address), "characteristic": name,
                  "hex": bytes(value).hex()})

        return gatt.Descriptor(
            gatt.GATT_CLIENT_CHARACTERISTIC_CONFIGURATION_DESCRIPTOR,
            att.Attribute.READABLE | att.Attribute.WRITEABLE,
            att.AttributeValueV2(read=lambda bearer: server.read_cccd(bearer, characteristic),
                                 write=write))

    # -- GATT database -----------------------------------------------------------------------
    def build_gatt(self) -> None:
        props = gatt.Characteristic.Properties
        readable = att.Attribute.READABLE
        self.measurement = gatt.Characteristic(GLUCOSE_MEASUREMENT, props.NOTIFY, 0, b"")
        self.context = gatt.Characteristic(GLUCOSE_CONTEXT, props.NOTIFY, 0, b"")
        self.racp = gatt.Characteristic(RACP_UUID, props.WRITE | props.INDICATE, att.Attribute.WRITEABLE,
                                        gatt.CharacteristicValue(write=self.on_racp))
        self.measurement.descriptors = [self.protected_cccd(self.measurement, "2A18")]
        self.context.descriptors = [self.protected_cccd(self.context, "2A34")]
        self.racp.descriptors = [self.protected_cccd(self.racp, "2A52")]
        # Feature: low battery, sensor malfunction, sample size, strip insertion, strip type,
        # result high/low, temperature high/low, read interrupt, general fault (bits 0-8) = 0x01FF.
        feature = gatt.Characteristic(GLUCOSE_FEATURE, props.READ, readable, struct.pack("<H", 0x01FF))
        self.device.add_services([
            gatt.Service(gatt.GATT_GLUCOSE_SERVICE, [self.measurement, self.context, feature, self.racp]),
            gatt.Service(gatt.GATT_BATTERY_SERVICE, [
                gatt.Characteristic(gatt.GATT_BATTERY_LEVEL_CHARACTERISTIC, props.READ, readable,
                                    bytes([self.args.battery]))]),
            gatt.Service(gatt.GATT_DEVICE_INFORMATION_SERVICE, [
                gatt.Characteristic(gatt.GATT_MANUFACTURER_NAME_STRING_CHARACTERISTIC, props.READ,
                                    readable, b"Vigil Test Rigs Ltd"),
                gatt.Characteristic(gatt.GATT_MODEL_NUMBER_STRING_CHARACTERISTIC, props.READ,
                                    readable, b"VGM-1"),
            ]),
        ])

    # -- RACP --------------------------------------------------------------------------------
    def on_racp(self, connection: Connection, value: bytes) -> None:
        value = bytes(value)
        emit({"received": "racp", "peer": str(connection.peer_address), "hex": value.hex()})
        self.refuse_unless_encrypted(connection, "racp-write")
        if not self.subscribed(connection, self.racp, indicate=True):
            # GLS 1.0: a write with indications off is refused with the CCCD-improperly-configured error.
            raise att.ATT_Error(error_code=0xFD)
        opcode = value[0] if value else 0
        if opcode == OP_ABORT:
            if self.procedure and not self.procedure.done():
                self.procedure.cancel()
            self.stalled = False
            self.in_progress = False
            self.later(self.respond(connection, OP_ABORT, RC_SUCCESS if value[1:] == b"\x00" else RC_INVALID_OPERATOR))
            return
        if self.in_progress or self.stalled:
            # Only abort may interrupt a running procedure (GLS 1.0 RACP behaviour).
            self.later(self.respond(connection, opcode, RC_NOT_COMPLETED))
            return
        self.in_progress = True
        self.procedure = self.later(self.run_procedure(connection, value))

    def later(self, coroutine) -> asyncio.Task:
        # After the Write Response: the records must not overtake the acknowledgement.
        return asyncio.get_running_loop().create_task(coroutine)

    def select(self, operator: int, operand: bytes) -> list[Record] | int:
        """The records an operator selects, or a response code."""
        if operator == OPER_ALL:
            return [] if operand else list(self.records)
        if operator == OPER_FIRST:
            return self.records[:1]
        if operator == OPER_LAST:
            return self.records[-1:]
        if operator in (OPER_LE, OPER_GE, OPER_RANGE):
            if not operand:
                return RC_INVALID_OPERAND
            if operand[0] != FILTER_SEQUENCE_NUMBER:
                return RC_OPERAND_NOT_SUPPORTED
            need = 5 if operator == OPER_RANGE else 3
            if len(operand) != need:
                return RC_INVALID_OPERAND
            if operator == OPER_RANGE:
                low, high = struct.unpack("<HH", operand[1:5])
                return [r for r in self.records if low <= r.sequence <= high]
            (limit,) = struct.unpack("<H", operand[1:3])
            if operator == OPER_LE:
                return [r for r in self.records if r.sequence <= limit]
            return [r for r in self.records if r.sequence >= limit]
        return RC_INVALID_OPERATOR if operator == OPER_NULL or operator > OPER_LAST else RC_OPERATOR_NOT_SUPPORTED

    async def run_procedure(self, connection: Connection, value: bytes) -> None:
        opcode = value[0] if value else 0
        operator = value[1] if len(value) > 1 else OPER_NULL
        operand = value[2:]
        if opcode not in (OP_REPORT, OP_COUNT):
            await self.respond(connection, opcode, RC_OPCODE_NOT_SUPPORTED)
            return
        selected = self.select(operator, operand)
        if isinstance(selected, int):
            await self.respond(connection, opcode, selected)
            return
        if opcode == OP_COUNT:
            response = bytes([OP_COUNT_RESPONSE, OPER_NULL]) + struct.pack("<H", len(selected))
            self.in_progress = False
            await self.indicate(connection, response)
            return
        if not selected:
            await self.respond(connection, opcode, RC_NO_RECORDS)
            return
        for count, record in enumerate(selected):
            if self.args.stall_after is not None and count >= self.args.stall_after:
                self.stalled = True
                emit({"event": "stalled", "peer": str(connection.peer_address), "after": count})
                return
            await self.send_record(connection, record, value)
        await self.respond(connection, opcode, RC_SUCCESS)

    async def send_record(self, connection: Connection, record: Record, request: bytes) -> None:
        peer = str(connection.peer_address)
        if self.subscribed(connection, self.measurement):
            await self.device.notify_subscriber(connection, self.measurement, record.value)
            emit({"sent": "glucose-measurement", "peer": peer, "request": request.hex(), **record.log()})
        if record.context is not None and self.subscribed(connection, self.context):
            await self.device.notify_subscriber(connection, self.context, record.context)
            emit({"sent": "glucose-context", "peer": peer, "seq": record.sequence, "hex": record.context.hex()})
        await asyncio.sleep(self.args.record_interval_s)

    async def respond(self, connection: Connection, request: int, code: int) -> None:
        self.in_progress = False
        await self.indicate(connection, bytes([OP_RESPONSE, OPER_NULL, request, code]))

    async def indicate(self, connection: Connection, value: bytes) -> None:
        if connection.handle not in self.device.connections:
            return
        await self.device.indicate_subscriber(connection, self.racp, value)
        emit({"sent": "racp", "peer": str(connection.peer_address), "hex": value.hex()})

    def subscribed(self, connection: Connection, characteristic: gatt.Characteristic,
                   indicate: bool = False) -> bool:
        cccd = self.device.gatt_server.subscribers.get(connection, {}).get(characteristic.handle)
        return bool(cccd) and len(cccd) == 2 and cccd[0] & (0x02 if indicate else 0x01) != 0

    # -- connection life ---------------------------------------------------------------------
    def on_connection(self, connection: Connection) -> None:
        peer = str(connection.peer_address)
        emit({"event": "connected", "peer": peer, "handle": connection.handle})
        self.connections += 1
        if self.connections == self.args.reset_at_connection:
            # A meter whose numbers restart: records from 1 again, a day later than the first set.
            self.records = self.make_records(self.args.records_after_reset, 1, BASE_LOCAL_TIME + datetime.timedelta(days=1))
            emit({"event": "reset", "records": [r.log() for r in self.records]})

        def on_disconnection(reason) -> None:
            if self.procedure and not self.procedure.done():
                self.procedure.cancel()
            self.stalled = False
            self.in_progress = False
            emit({"event": "disconnected", "peer": peer, "reason": int(reason)})

        connection.on(connection.EVENT_DISCONNECTION, on_disconnection)
        connection.on(connection.EVENT_PAIRING, lambda keys: emit(
            {"event": "paired", "peer": peer, "secureConnections": bool(connection.sc),
             "bonded": keys is not None and any(
                 key is not None for key in (keys.ltk, keys.ltk_central, keys.ltk_peripheral))}))
        connection.on(connection.EVENT_PAIRING_FAILURE, lambda reason: emit(
            {"event": "pairing-failed", "peer": peer, "reason": int(reason)}))
        connection.on(connection.EVENT_CONNECTION_ENCRYPTION_CHANGE, lambda: emit(
            {"event": "encrypted" if connection.encryption else "encryption-off", "peer": peer}))


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    rig_common.add_common_arguments(parser)
    parser.add_argument("--name", default="Vigil Meter")
    parser.add_argument("--address", default="C3:11:22:33:44:66",
                        help="random static address of the peripheral")
    parser.add_argument("--records", type=int, default=5, help="stored records")
    parser.add_argument("--first-sequence", type=int, default=1, help="sequence number of the oldest record")
    parser.add_argument("--record-spacing-min", type=int, default=240,
                        help="minutes between consecutive stored records")
    parser.add_argument("--record-interval-s", type=float, default=0.02,
                        help="pause between record notifications")
    parser.add_argument("--stall-after", type=int, default=None,
                        help="send only this many records of a report, then never respond")
    parser.add_argument("--battery", type=int, default=64)
    parser.add_argument("--reset-at-connection", type=int, default=None,
                        help="as this connection (1 = the first) begins, the meter resets: new records from sequence 1")
    parser.add_argument("--records-after-reset", type=int, default=3, help="records the meter holds after the reset")
    args = parser.parse_args()
    if args.records < 0 or not 0 <= args.first_sequence <= 0xFFFF - max(args.records - 1, 0):
        parser.error("--records must be >= 0 and the sequence numbers must fit in u16")
    rig_common.setup_logging(args.verbose)

    rig = rig_common.Rig(args, "glucose-meter")
    rig.install_lifecycle()
    meter = GlucoseMeter(args, rig)
    port = await rig.start_hci_server()
    emit({"rig": "glucose-meter", "port": port, "address": args.address, "addressType": "random",
          "name": args.name, "appearance": APPEARANCE_GLUCOSE_METER, "services": ["1808", "180F", "180A"],
          "records": [{"peer": None, **r.log()} for r in meter.records],
          "legacyReports": args.legacy_reports, "bumble": importlib.metadata.version("bumble")})
    await meter.device.power_on()
    await meter.device.start_advertising(auto_restart=True)
    rig.ready(port)
    await rig.wait_until_stopped()


if __name__ == "__main__":
    asyncio.run(main())
