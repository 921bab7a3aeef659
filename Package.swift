// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Stash",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "StashModel", targets: ["StashModel"]),
    .library(name: "JSONLines", targets: ["JSONLines"]),
    .library(name: "LocalStore", targets: ["LocalStore"]),
    .library(name: "MirrorStore", targets: ["MirrorStore"]),
    .library(name: "Reconciler", targets: ["Reconciler"]),
    .library(name: "CloudFolder", targets: ["CloudFolder"]),
    .library(name: "StashCrypto", targets: ["StashCrypto"]),
    .library(name: "Stash", targets: ["Stash"]),
    .executable(name: "stash", targets: ["stash"]),
    .executable(name: "stash-bench", targets: ["StashBench"]),
    .library(name: "MeterSettings", targets: ["MeterSettings"]),
    .executable(name: "stash-meters", targets: ["StashMeters"]),
  ],
  targets: [
    // Records, schemas, canonical snapshots, SHA-256, CRC-32 and our JSON reader/writer.
    .target(name: "StashModel"),
    // The durable JSON-lines transaction log both stores are written with.
    .target(name: "JSONLines", dependencies: ["StashModel"]),
    // The inventory (`default.store`). Never imports MirrorStore.
    .target(name: "LocalStore", dependencies: ["StashModel", "JSONLines"]),
    // The mirror (`cloud.store`) a transport replicates. Never imports LocalStore.
    .target(name: "MirrorStore", dependencies: ["StashModel", "JSONLines"]),
    // The decision table, passes, resolution and the import gate: the only module that sees
    // both stores.
    .target(
      name: "Reconciler", dependencies: ["StashModel", "JSONLines", "LocalStore", "MirrorStore"]),
    // The transport: mirror versions through a shared folder, sealed when the folder is
    // encrypted. Imports MirrorStore only.
    .target(
      name: "CloudFolder", dependencies: ["StashModel", "JSONLines", "MirrorStore", "StashCrypto"]),
    // ChaCha20-Poly1305, XChaCha20-Poly1305, HMAC and HKDF (SHA-256), the folder key and its
    // sync key text. Knows nothing of files or folders.
    .target(name: "StashCrypto", dependencies: ["StashModel"]),
    // The facade other tools embed: a device folder, typed inventory, conflicts, sync.
    .target(
      name: "Stash",
      dependencies: [
        "StashModel", "JSONLines", "LocalStore", "MirrorStore", "Reconciler", "CloudFolder",
        "StashCrypto",
      ]),
    // The small table-driven command-line parser the `stash` tool is built on.
    .target(name: "ArgumentParsing"),
    .executableTarget(
      name: "stash", dependencies: ["ArgumentParsing", "Stash", "StashModel", "StashCrypto"]),
    .executableTarget(
      name: "StashBench",
      dependencies: [
        "StashModel", "JSONLines", "LocalStore", "MirrorStore", "Reconciler", "Stash", "StashCrypto",
      ]),

    // Seed 000's meter settings: a second schema on the generic SyncFolder, and its example
    // tool (`stash-meters`).
    .target(name: "MeterSettings", dependencies: ["Stash", "StashModel"]),
    .executableTarget(
      name: "StashMeters",
      dependencies: ["ArgumentParsing", "MeterSettings", "Stash", "StashModel"]),

    // Test-only targets, under Tests/ (none is part of a product): helpers shared by the tests
    // (temporary folders, seeded randomness, fixtures, fake file systems), a seeded two-device
    // workload for the crash and fault tests, and the child process the crash tests kill.
    .target(
      name: "StashTestSupport", dependencies: ["StashModel", "MirrorStore", "JSONLines"],
      path: "Tests/StashTestSupport"),
    .target(
      name: "StashWorkload",
      dependencies: [
        "Stash", "LocalStore", "MirrorStore", "JSONLines", "StashModel", "StashTestSupport",
      ],
      path: "Tests/StashWorkload"),
    .executableTarget(
      name: "StashCrashChild",
      dependencies: ["StashWorkload", "StashTestSupport", "JSONLines", "StashModel"],
      path: "Tests/StashCrashChild"),
    .testTarget(name: "StashModelTests", dependencies: ["StashModel", "JSONLines", "StashTestSupport"]),
    .testTarget(
      name: "StashCryptoTests", dependencies: ["StashCrypto", "StashModel", "StashTestSupport"]),
    .testTarget(name: "JSONLinesTests", dependencies: ["JSONLines", "StashTestSupport"]),
    .testTarget(name: "LocalStoreTests", dependencies: ["LocalStore", "StashTestSupport"]),
    .testTarget(name: "MirrorStoreTests", dependencies: ["MirrorStore", "StashTestSupport"]),
    .testTarget(
      name: "ReconcilerTests",
      dependencies: [
        "Reconciler", "LocalStore", "MirrorStore", "JSONLines", "StashModel", "StashTestSupport",
      ]),
    .testTarget(
      name: "CloudFolderTests",
      dependencies: [
        "CloudFolder", "MirrorStore", "JSONLines", "StashModel", "StashTestSupport", "StashCrypto",
      ]),
    .testTarget(name: "StashTests", dependencies: ["Stash", "LocalStore", "MirrorStore", "Reconciler", "CloudFolder", "JSONLines", "StashModel", "StashTestSupport", "StashWorkload"]),
    .testTarget(
      name: "MeterSettingsTests",
      dependencies: ["MeterSettings", "Stash", "StashModel", "StashTestSupport"]),
    .testTarget(name: "ArgumentParsingTests", dependencies: ["ArgumentParsing", "StashTestSupport"]),
    // Runs the built `stash` binary as a person would; LocalStore and JSONLines only seed
    // fixtures (a conflict) and hold the folder's lock, MirrorStore reads what reached a mirror.
    .testTarget(
      name: "StashCLITests",
      dependencies: [
        "Stash", "StashModel", "StashTestSupport", "JSONLines", "LocalStore", "MirrorStore",
        "StashCrypto",
      ]),
  ],
  swiftLanguageModes: [.v6]
)

// One set of settings for every target, applied in one place.
for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  settings.append(.enableUpcomingFeature("MemberImportVisibility"))
  if target.type == .regular {
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
  }
  target.swiftSettings = settings
}
