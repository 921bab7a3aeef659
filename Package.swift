// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Stash",
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "StashBase", targets: ["StashBase"]),
    .library(name: "StashModel", targets: ["StashModel"]),
    .library(name: "StashFiles", targets: ["StashFiles"]),
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
    // Infrastructure with no record in it: our JSON reader/writer, SHA-256, CRC-32, and
    // `Parallel`/`Background`.
    .target(name: "StashBase"),
    // Records, schemas, canonical snapshots, the inventory models and the sync types.
    .target(name: "StashModel", dependencies: ["StashBase"]),
    // The file-system seam, paths, temporary names, the photos (blobs), and the checked blocks
    // and field bytes of derived files.
    .target(name: "StashFiles", dependencies: ["StashBase", "StashModel"]),
    // The durable JSON-lines transaction log both stores are written with, the log store, the
    // folder's lock and the derived-file container (its source names a log's prefix).
    .target(name: "JSONLines", dependencies: ["StashBase", "StashModel", "StashFiles"]),
    // The inventory (`default.store`). Never imports MirrorStore.
    .target(
      name: "LocalStore", dependencies: ["StashBase", "StashModel", "StashFiles", "JSONLines"]),
    // The mirror (`cloud.store`) a transport replicates. Never imports LocalStore.
    .target(
      name: "MirrorStore", dependencies: ["StashBase", "StashModel", "StashFiles", "JSONLines"]),
    // The decision table, passes, resolution and the import gate: the only module that sees
    // both stores.
    .target(
      name: "Reconciler",
      dependencies: ["StashBase", "StashModel", "JSONLines", "LocalStore", "MirrorStore"]),
    // The transport: mirror versions through a shared folder, sealed when the folder is
    // encrypted. Imports MirrorStore only.
    .target(
      name: "CloudFolder",
      dependencies: [
        "StashBase", "StashModel", "StashFiles", "JSONLines", "MirrorStore", "StashCrypto",
      ]),
    // ChaCha20-Poly1305, XChaCha20-Poly1305, HMAC and HKDF (SHA-256), the folder key and its
    // sync key text. Knows nothing of files or folders.
    .target(name: "StashCrypto", dependencies: ["StashBase"]),
    // The facade other tools embed: a device folder, typed inventory, conflicts, sync.
    .target(
      name: "Stash",
      dependencies: [
        "StashBase", "StashModel", "StashFiles", "JSONLines", "LocalStore", "MirrorStore",
        "Reconciler", "CloudFolder", "StashCrypto",
      ]),
    // The small table-driven command-line parser the `stash` tool is built on.
    .target(name: "ArgumentParsing"),
    .executableTarget(
      name: "stash",
      dependencies: ["ArgumentParsing", "Stash", "StashBase", "StashModel", "StashCrypto"]),
    // `stash-bench`; its README.md keeps every measurement behind the README's "Speed".
    .executableTarget(
      name: "StashBench",
      dependencies: [
        "StashBase", "StashModel", "JSONLines", "LocalStore", "MirrorStore", "Reconciler", "Stash",
        "StashCrypto",
      ],
      exclude: ["README.md"]),

    // Seed 000's meter settings: a second schema on the generic SyncFolder, and its example
    // tool (`stash-meters`).
    .target(name: "MeterSettings", dependencies: ["Stash", "StashModel", "StashBase"]),
    .executableTarget(
      name: "StashMeters",
      dependencies: ["ArgumentParsing", "MeterSettings", "Stash", "StashModel"]),

    // Test-only targets, under Tests/ (none is part of a product): helpers shared by the tests
    // (temporary folders, seeded randomness, fixtures, fake file systems), a seeded two-device
    // workload for the crash and fault tests, and the child process the crash tests kill.
    .target(
      name: "StashTestSupport",
      dependencies: ["StashBase", "StashModel", "StashFiles", "MirrorStore", "JSONLines"],
      path: "Tests/StashTestSupport"),
    .target(
      name: "StashWorkload",
      dependencies: [
        "Stash", "LocalStore", "MirrorStore", "JSONLines", "StashFiles", "StashModel", "StashBase",
        "StashTestSupport",
      ],
      path: "Tests/StashWorkload"),
    .executableTarget(
      name: "StashCrashChild",
      dependencies: ["StashWorkload", "StashTestSupport", "JSONLines", "StashModel"],
      path: "Tests/StashCrashChild"),
    .testTarget(
      name: "StashModelTests",
      dependencies: ["StashModel", "StashBase", "JSONLines", "StashTestSupport"]),
    .testTarget(
      name: "StashCryptoTests",
      dependencies: ["StashCrypto", "StashModel", "StashBase", "StashTestSupport"]),
    .testTarget(
      name: "JSONLinesTests",
      dependencies: ["JSONLines", "StashFiles", "StashModel", "StashBase", "StashTestSupport"]),
    .testTarget(
      name: "LocalStoreTests",
      dependencies: [
        "LocalStore", "JSONLines", "StashFiles", "StashModel", "StashBase", "StashTestSupport",
      ]),
    .testTarget(
      name: "MirrorStoreTests",
      dependencies: ["MirrorStore", "JSONLines", "StashModel", "StashBase", "StashTestSupport"]),
    .testTarget(
      name: "ReconcilerTests",
      dependencies: [
        "Reconciler", "LocalStore", "MirrorStore", "JSONLines", "StashFiles", "StashModel",
        "StashBase", "StashTestSupport",
      ]),
    .testTarget(
      name: "CloudFolderTests",
      dependencies: [
        "CloudFolder", "MirrorStore", "JSONLines", "StashFiles", "StashModel", "StashBase",
        "StashTestSupport", "StashCrypto",
      ]),
    .testTarget(
      name: "StashTests",
      dependencies: [
        "Stash", "LocalStore", "MirrorStore", "Reconciler", "CloudFolder", "JSONLines",
        "StashFiles", "StashModel", "StashBase", "StashTestSupport", "StashWorkload",
      ]),
    .testTarget(
      name: "MeterSettingsTests",
      dependencies: ["MeterSettings", "Stash", "StashModel", "StashTestSupport"]),
    .testTarget(
      name: "ArgumentParsingTests", dependencies: ["ArgumentParsing", "StashTestSupport"]),
    // Runs the built `stash` binary as a person would; LocalStore and JSONLines only seed
    // fixtures (a conflict) and hold the folder's lock, MirrorStore reads what reached a mirror.
    .testTarget(
      name: "StashCLITests",
      dependencies: [
        "Stash", "StashModel", "StashBase", "StashTestSupport", "JSONLines", "StashFiles",
        "LocalStore", "MirrorStore", "StashCrypto",
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
