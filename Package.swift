// swift-tools-version:6.2
// Vigil: a bedside alarm that is its own Bluetooth LE host.
// Dependency direction (see docs/ARCHITECTURE.md):
//   Wire <- Bluetooth <- HCI <- Host;  Readings <- Transmitters;  App sees the sans-IO targets;
//   Platform makes every system call;  only the `vigil` executable sees both App and Platform.
import PackageDescription

// CI (scripts/test) builds with warnings as errors; a developer's quick build keeps them warnings.
let warningsAreErrors = Context.environment["VIGIL_WARNINGS_AS_ERRORS"] == "1"
let strict: [SwiftSetting] = warningsAreErrors ? [.treatAllWarnings(as: .error)] : []
// Release builds optimise for size everywhere but the decoding hot path (Wire, Bluetooth, HCI):
// resident memory follows the size of the code, and advertising reports must still decode at
// 5 M/s (scripts/release explains both figures).
let small: [SwiftSetting] = strict + [.unsafeFlags(["-Osize"], .when(configuration: .release))]
// The C shims' warnings, errors under CI like Swift's.
let cWarnings: [CSetting] = warningsAreErrors ? [.unsafeFlags(["-Wall", "-Werror"])] : [.unsafeFlags(["-Wall"])]

let package = Package(
    name: "vigil",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "vigil", targets: ["vigil"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        .target(name: "Wire", swiftSettings: strict),
        .target(name: "Clocks", swiftSettings: strict),
        .target(name: "Bluetooth", dependencies: ["Wire"], swiftSettings: strict),
        .target(name: "HCI", dependencies: ["Wire", "Bluetooth", "Clocks"], swiftSettings: strict),
        .target(
            name: "SMP",
            dependencies: [
                "Wire", "Bluetooth", "Clocks",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: small),
        .target(name: "Host", dependencies: ["Wire", "Bluetooth", "HCI", "SMP", "Clocks"], swiftSettings: small),
        // OpenSSL 3's libcrypto (libssl-dev; its static archive in the release): P-256 arithmetic on
        // arbitrary points for the Dexcom G7's J-PAKE, certificates and ECDSA (docs/crypto.md).
        .target(name: "CLibCrypto", cSettings: cWarnings, linkerSettings: [.linkedLibrary("crypto")]),
        // OpenSSL 3's libssl (the same libssl-dev; its static archive in the release): HTTPS for
        // the page over memory buffers, so TLS stays sans-IO (docs/crypto.md "TLS").
        .target(name: "CLibSSL", dependencies: ["CLibCrypto"], cSettings: cWarnings, linkerSettings: [.linkedLibrary("ssl"), .linkedLibrary("crypto")]),
        .target(name: "TLS", dependencies: ["CLibSSL"], swiftSettings: small),
        .target(name: "Readings", dependencies: ["Clocks"], swiftSettings: small),
        .target(name: "Alarms", dependencies: ["Readings", "Clocks"], swiftSettings: small),
        // HTTP/1.1 server side, sans-IO: the page's and the Nightscout API's messages, parser,
        // connections and server (docs/http.md); the sockets are Platform's.
        .target(name: "Web", dependencies: ["Clocks"], swiftSettings: small),
        .target(
            name: "Transmitters",
            dependencies: [
                "Wire", "Bluetooth", "Readings", "Clocks", "CLibCrypto",
                // AES-128-ECB for the Dexcom challenge, AES-CCM for encrypted BTHome, SHA-256.
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ],
            swiftSettings: small),
        .target(name: "Simulator", dependencies: ["Wire", "Bluetooth", "HCI", "SMP", "Clocks", "Transmitters", "Readings"], swiftSettings: small),
        .target(
            name: "App",
            dependencies: [
                "Wire", "Bluetooth", "HCI", "SMP", "Host", "Readings", "Transmitters", "Clocks", "Simulator", "Alarms",
                // The page and the Nightscout API on the home network (docs/web.md).
                "Web",
                // SHA-1 of the Nightscout API secret, SHA-256 for entry ids (docs/nightscout-api.md).
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: small),
        .target(name: "CPlatform", cSettings: cWarnings),
        // The kernel's GPIO uAPI v2 ioctls (<linux/gpio.h> from linux-libc-dev; docs/gpio-uapi.md).
        .target(name: "CGPIO", cSettings: cWarnings),
        .target(name: "Platform", dependencies: ["CPlatform", "CGPIO", "Clocks"], swiftSettings: small),
        // SQLite 3 from the system (libsqlite3-dev; scripts/install-deps installs it).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // The rolling history: readings, alarm events, calibrations and devices in SQLite.
        .target(name: "History", dependencies: ["CSQLite", "Readings", "Alarms", "Clocks", "Platform"], swiftSettings: small),
        .executableTarget(
            name: "vigil",
            dependencies: [
                "App", "Platform", "HCI", "Host", "Bluetooth", "Wire", "Clocks", "Transmitters", "Readings", "Simulator", "Alarms", "History",
                "TLS", "Web",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: small),
        .executableTarget(
            name: "vigil-bench",
            dependencies: ["Wire", "Bluetooth", "HCI", "Host", "App", "Platform", "Clocks", "Simulator", "Alarms", "Transmitters", "Readings", "History", "Web"],
            path: "Sources/Benchmarks",
            swiftSettings: strict),
        // libFuzzer entry points for every parser; scripts/fuzz builds them with
        // -sanitize=fuzzer,address -DFUZZING, a plain build gets a corpus-replaying main.
        .target(
            name: "FuzzTargets",
            dependencies: ["Wire", "Bluetooth", "HCI", "SMP", "Host", "Transmitters", "Readings", "Clocks", "App", "Simulator", "Web"],
            swiftSettings: strict),
        .executableTarget(name: "vigil-fuzz", dependencies: ["FuzzTargets"], path: "Sources/Fuzz", swiftSettings: strict),

        .testTarget(name: "WireTests", dependencies: ["Wire"], swiftSettings: strict),
        .testTarget(name: "ClocksTests", dependencies: ["Clocks"], swiftSettings: strict),
        .testTarget(name: "SMPTests", dependencies: ["SMP", "Bluetooth", "Wire", "Clocks"], swiftSettings: strict),
        .testTarget(name: "ReadingsTests", dependencies: ["Readings", "Clocks"], swiftSettings: strict),
        .testTarget(name: "AlarmsTests", dependencies: ["Alarms", "Readings", "Clocks"], swiftSettings: strict),
        .testTarget(name: "WebTests", dependencies: ["Web", "Clocks"], swiftSettings: strict),
        .testTarget(name: "TLSTests", dependencies: ["TLS", "Platform"], swiftSettings: strict),
        .testTarget(name: "BluetoothTests", dependencies: ["Bluetooth", "Wire"], swiftSettings: strict),
        .testTarget(name: "HCITests", dependencies: ["HCI", "Bluetooth", "Wire", "Clocks"], swiftSettings: strict),
        .testTarget(name: "HostTests", dependencies: ["Host", "SMP", "HCI", "Bluetooth", "Wire", "Clocks", "Simulator"], swiftSettings: strict),
        .testTarget(
            name: "TransmittersTests",
            dependencies: [
                "Transmitters", "Simulator", "Readings", "Wire", "Bluetooth", "Clocks",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The scripts that made the Dexcom G7 vectors and test credentials (docs/crypto.md).
            exclude: ["DexcomG7/make_jpake_vectors.py", "DexcomG7/make_test_credentials.sh"],
            swiftSettings: strict),
        .testTarget(name: "SimulatorTests", dependencies: ["Simulator", "Transmitters", "SMP", "HCI", "Bluetooth", "Wire", "Clocks"], swiftSettings: strict),
        .testTarget(name: "AppTests", dependencies: ["App", "Alarms", "SMP", "Simulator", "Host", "HCI", "Bluetooth", "Wire", "Clocks", "Transmitters", "Readings", "Web"], swiftSettings: strict),
        .testTarget(name: "PlatformTests", dependencies: ["Platform", "CGPIO", "Clocks"], swiftSettings: strict),
        .testTarget(name: "HistoryTests", dependencies: ["History", "Readings", "Alarms", "Clocks", "Platform", "App"], swiftSettings: strict),
        .testTarget(name: "FuzzTargetsTests", dependencies: ["FuzzTargets", "Transmitters"], swiftSettings: strict),
        .testTarget(name: "InteropTests", dependencies: ["Platform", "HCI", "Wire", "History", "Readings", "Clocks"], swiftSettings: strict),
    ]
)
