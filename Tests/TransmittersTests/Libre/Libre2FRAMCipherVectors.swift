import Wire
@testable import Transmitters

/// Two encrypted FRAM dumps of real European Libre 2 sensors with the UID and patchInfo they
/// were read with, published as `Libre2.Example` and `Libre2.Example2` in ivalkou/LibreTools
/// `Sources/LibreTools/Sensor/Libre2.swift` (read at commit 0ef03f7508f7; the same two examples
/// appear in dabear/LibreTransmitter `LibreSensor/SensorContents/PreLibre2.swift`, and
/// ivalkou/LibreTools issue 1 discusses Example2). The sources give no decrypted bytes; the evidence is that all three
/// block CRCs, which the cipher does not produce, check out after decryption — a chance match
/// is about one in 2^48 — and that the decoded fields are those of a sensor in its first two
/// weeks (docs/protocols/libre2-fram.md §Test vectors).
enum Libre2FRAMCipherVectors {
    struct Dump {
        let sensorUID: LibreSensorUID
        let patchInfo: LibrePatchInfo
        let encrypted: [UInt8]
        /// The sensor age the deciphered dump holds (docs/protocols/libre2-fram.md §Test
        /// vectors): what a bridge carrying it must end up reporting.
        let ageMinutes: Int
    }

    static var all: [Dump] { [example, example2] }

    /// `Libre2.Example` (given there in decimal).
    static let example = try! Dump(
        sensorUID: LibreSensorUID([UInt8](hex: "9d 81 c2 00 00 a4 07 e0")),
        patchInfo: LibrePatchInfo([UInt8](hex: "9d 08 30 01 73 17")),
        encrypted: [UInt8](hex: """
        06 9a dd 79 8e 9a f4 ba a2 55 4f 31 ea e0 47 3a bd 79 7b 27 1c a2 86 f8 5f 04 1c cb 1b 52 4c 77
        52 62 bd b7 93 97 20 0d 49 9e d6 a7 8f 02 b6 16 45 bc 49 db 07 9f b3 a9 ed 4f 20 bd 25 d3 20 a6
        bf 96 ab 3c 8f 8f 01 69 59 c5 62 fa 01 c9 15 38 40 bf 3a 11 c6 6c 48 6a 90 fd 13 6f eb bb f5 d0
        ef 3c 91 01 6b 5e ee c7 9d 5d f3 05 04 9a 19 81 83 4b 10 f0 d2 76 ac 0e 50 31 21 0b 51 0b ee dc
        4e 55 52 f5 04 3f 81 fe d6 e9 e1 93 3a 99 14 f7 0a 26 95 23 0e 3b a8 e0 a2 8d 09 48 c9 5a 38 83
        96 59 7e 02 60 26 8c 4e 97 c4 39 37 25 14 f9 c7 a8 3b 29 d9 f0 43 c7 5d a4 79 ce 64 d6 7e 28 e7
        44 04 4c ca 83 9a 62 50 e3 ed 90 35 7d 85 0e ae c4 5a 4e ee a3 c7 f9 4a 4b 38 7f 3d 62 b4 99 33
        55 44 ea cc 75 9e f5 b9 28 ba e3 32 69 e7 9b a0 42 b2 7c a2 46 77 66 a1 ea 69 fc c8 c3 ca f6 12
        47 bd 96 7b 69 6a 69 df 74 a0 8e 65 1c 97 2a cc 31 2c 6f f5 a1 42 b2 1a 63 6e 88 8c 87 a7 ab a0
        dd 73 09 e6 69 42 14 c3 ac ce d7 e2 6b fa e0 f1 06 db 8b fb bd 6a a1 7c 62 4e ba ec c8 37 15 44
        ab 39 08 1b dd 76 ce 5e e2 9b 52 8f 2c ba ad 56 f8 de 9e 61 f1 9c fd fe
        """),
        ageMinutes: 10320
    )

    /// `Libre2.Example2`.
    static let example2 = try! Dump(
        sensorUID: LibreSensorUID([UInt8](hex: "df 20 be 00 00 a4 07 e0")),
        patchInfo: LibrePatchInfo([UInt8](hex: "9d 08 30 01 76 25")),
        encrypted: [UInt8](hex: """
        52 0b f3 44 dc a0 43 21 cc 7d d7 4e 29 e2 82 e3 e7 04 c9 cf 6c 57 2c 7d a8 82 10 aa d7 32 19 b3
        c7 9f 39 5f e3 7a 45 08 b7 09 bc 6e fa da 34 07 b4 65 68 60 7e a5 04 e6 65 65 48 13 f8 9c a7 c8
        70 a7 4d 9d 52 35 86 f2 02 cc 9b 9b 74 32 ff c5 bf e9 78 1f 46 c2 c7 0b 0f b0 c8 54 23 e2 0d 44
        97 44 36 8f ac 12 ae 4a 6c e1 37 e2 46 2b 5c 74 1b 7a fe 67 4f cc dd 95 17 73 b3 25 e9 ab a6 5e
        70 e4 6c ce 56 8d b9 e5 fe aa 50 36 52 d2 c5 22 24 39 d8 63 08 62 04 ad fa 89 00 10 72 cf a9 f3
        47 4b f5 70 96 f2 8a ca ff ef a3 9e 1a ec 9f 4a 2f e8 a9 ca e6 c8 74 46 98 b2 a2 9e 8d f0 af 09
        c1 5b 52 59 7e 00 d3 3f 59 41 7b 33 ee db 40 51 b2 3d 94 82 f3 b2 e4 ca ad 3c d8 c0 d7 d7 4c 51
        ca a3 ad 26 24 ab 10 ba 61 35 e1 7f 3d 3f ec b4 cf e3 a2 31 6a e7 d7 36 18 21 5b 43 5a 9c 75 7c
        89 e2 49 6c b1 71 6a 47 6e 8a e5 b2 c5 37 e9 e5 dd b3 12 37 95 7a d0 1f 73 eb b8 15 f1 e6 5d 51
        fb 16 88 a6 9c 17 b0 40 0e bb d7 ca 9d cd 8b 60 88 88 54 fc 65 71 43 e7 51 e2 18 ea 63 1d 5b aa
        d1 d3 d7 08 b7 ed 87 c4 b4 24 31 e7 a0 e6 59 51 93 fd a3 e6 bf e1 f2 09
        """),
        ageMinutes: 3170
    )
}

extension Libre2FRAMCipherVectors.Dump {
    /// The deciphered FRAM, for a Bubble that sends it already plain (`0x88`).
    var plain: [UInt8] { try! Libre2FRAMCipher.decrypt(fram: encrypted, sensorUID: sensorUID, patchInfo: patchInfo) }
}
