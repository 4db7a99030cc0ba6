import Clocks
import Readings

/// 2026-11-22T10:00:00Z: a believable wall clock for test rows.
let noon = WallClockTime(secondsSinceEpoch: 1_795_341_600)

/// One of every `Reading.Value` case, with values that exercise the columns: fractional mg/dL,
/// a nil trend beside a known one, every skin contact, empty and multi-interval RR lists,
/// negative temperature, 0 and 100 %.
let everyValue: [Reading.Value] = [
    .glucose(GlucoseConcentration(milligramsPerDeciliter: 97.5), trend: .fortyFiveDown),
    .glucose(GlucoseConcentration(milligramsPerDeciliter: 40), trend: nil),
    .glucose(GlucoseConcentration(milligramsPerDeciliter: 180), trend: .notComputable),
    .meterGlucose(GlucoseConcentration(millimolesPerLiter: 5.5), context: nil),
    .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104), context: MeterReadingContext(meal: .fasting, tester: .labTest)),
    .meterGlucose(GlucoseConcentration(milligramsPerDeciliter: 104), context: MeterReadingContext(meal: nil, tester: .notAvailable)),
    .heartRate(BeatsPerMinute(62), contact: .detected),
    .heartRate(BeatsPerMinute(0), contact: .notDetected),
    .heartRate(BeatsPerMinute(240), contact: .notReported),
    .rrIntervals([RRInterval(ticks: 1024), RRInterval(ticks: 998), RRInterval(ticks: 65535)]),
    .rrIntervals([]),
    .energyExpended(EnergyExpended(kilojoules: 1234)),
    .humidity(RelativeHumidity(percent: 45)!),
    .humidity(RelativeHumidity(percent: 81.5)!),      // BTHome 0x03, 0.01 % steps
    .humidity(RelativeHumidity(percent: 53.4925)!),   // RuuviTag, 0.0025 % steps
    .temperature(Temperature(degreesCelsius: -18.25)),
    .battery(Percent.zero),
    .battery(Percent.full),
]
