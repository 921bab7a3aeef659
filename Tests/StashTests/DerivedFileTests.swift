import Foundation
import JSONLines
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Testing

@testable import LocalStore
@testable import MirrorStore
@testable import Stash

/// Every derived file (``DerivedFiles/all``), whatever happened to it, is ignored and rebuilt,
/// and no answer changes: a lookup through the local index, a focused open of the mirror, the
/// digest (from the local index's digest section), the next sync's report.
@Suite struct DerivedFileTests {
  /// What can happen to a derived file.
  enum Damage: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case truncated, corrupt, newer, older, anotherStores, empty
    var testDescription: String { rawValue }
  }

  /// One kind of derived file, as the tests reach it.
  struct Kind: CustomTestStringConvertible, Sendable {
    let name: String
    let file: DerivedFile
    /// The file's name in a device folder.
    let fileName: String
    var testDescription: String { name }
  }

  static let kinds = DerivedFiles.all.map {
    Kind(name: $0.fileName, file: $0.kind, fileName: $0.fileName)
  }

  static let options: DeviceFolder.Options = {
    var options = DeviceFolder.Options(deviceName: "test-device", clock: { epoch })
    options.index = LocalStore.IndexPolicy(minimumRows: 1, rewriteAfterBytes: 1)
    options.mirrorIndex = MirrorStore.IndexPolicy(minimumVersions: 1, rewriteAfterBytes: 1)
    return options
  }()

  static func open(_ home: URL) throws -> DeviceFolder {
    try DeviceFolder.open(at: home.path, options: options)
  }

  /// A device folder `name` synced through `cloud` (three items), its derived files written.
  static func syncedFolder(_ root: URL, _ name: String) throws -> URL {
    let cloud = root.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    let home = root.appendingPathComponent(name)
    try open(home).folder.enableSync(cloud: cloud.path)
    let device = try open(home)
    for item in ["Koleston", "Batteries", "Foils"] {
      try device.addItem(Item(name: "\(item) \(name)", quantity: 5, createdAt: epoch))
    }
    _ = try device.folder.sync()
    _ = try open(home).folder.sync()  // the mirror's index once the first sync's saves are done
    return home
  }

  /// What a person sees of the folder at `home`: a lookup through the local index, a focused
  /// open of the mirror, the digest, and the report of a sync (made comparable).
  static func answers(_ home: URL) throws -> [String] {
    let focused = try DeviceFolder.open(
      at: home.path,
      options: {
        var options = options
        options.focus(on: [(model: "item", text: "Koleston a")])
        return options
      }())
    let item = try focused.item("Koleston a")
    let key = RecordKey(model: "item", id: item.id)
    let mirror = try MirrorStore.open(
      folder: home.path, schemas: InventorySchemas.registry,
      lock: FolderLock(folder: home.path), focus: [key])
    let digest = try open(home).computeDigest().digest
    var report = try open(home).folder.sync()
    report.choice = .full
    return [
      "\(item.name) \(item.quantity)", "\(mirror.content.versions[key]?.count ?? -1)",
      digest.overall.hex, "\(report)",
    ]
  }

  /// Whether the file at `path` is read as a current file of `kind` now.
  static func isCurrent(_ kind: Kind, at path: String) -> Bool {
    (try? kind.file.read(at: path, fileSystem: POSIXFileSystem()).get()) != nil
  }

  @Test(arguments: kinds, Damage.allCases)
  func aDamagedFileIsIgnoredAndRebuiltAndNoAnswerChanges(_ kind: Kind, _ damage: Damage) throws {
    try withTemporaryFolder { root in
      let home = try Self.syncedFolder(root, "a")
      let path = home.appendingPathComponent(kind.fileName).path
      #expect(Self.isCurrent(kind, at: path), "the sync wrote it")
      // The local index carries the digest's section too: ignored with it, rebuilt with it.
      let carriesDigest = kind.fileName == LocalStore.fileName + ".index"
      if carriesDigest { #expect(try Self.open(home).computeDigest().usedSection) }
      let expected = try Self.answers(home)
      var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
      let version = kind.file.magic.count
      switch damage {
      case .truncated: bytes.removeLast(bytes.count / 3)
      case .corrupt: bytes[kind.file.fixedLength + 5] ^= 0x20  // in the head
      case .newer: bytes[version] &+= 1
      case .older: bytes[version] &-= 1
      case .empty: bytes = []
      case .anotherStores:
        // Another device folder with its own shared folder: nothing of it reaches this one.
        let other = try Self.syncedFolder(root.appendingPathComponent("elsewhere"), "b")
        bytes = [UInt8](try Data(contentsOf: other.appendingPathComponent(kind.fileName)))
      }
      try Data(bytes).write(to: URL(fileURLWithPath: path))
      let reason = kind.file.read(at: path, fileSystem: POSIXFileSystem())
      switch damage {
      case .truncated, .corrupt: #expect(throws: DerivedFile.Ignored.damaged) { try reason.get() }
      case .newer:
        #expect(throws: DerivedFile.Ignored.newerVersion(kind.file.version + 1)) {
          try reason.get()
        }
      case .older:
        #expect(throws: DerivedFile.Ignored.olderVersion(kind.file.version - 1)) {
          try reason.get()
        }
      case .empty: #expect(throws: DerivedFile.Ignored.empty) { try reason.get() }
      case .anotherStores: break  // a well-formed file: its source is what does not fit
      }
      // Ignored: every answer is what it was.
      #expect(try Self.answers(home) == expected, "\(kind.name), \(damage)")
      // Rebuilt by the next sync that runs (a sync with nothing new opens nothing).
      _ = try Self.open(home).folder.syncFully()
      #expect(Self.isCurrent(kind, at: path), "rebuilt: \(kind.name), \(damage)")
      if carriesDigest { #expect(try Self.open(home).computeDigest().usedSection, "\(damage)") }
      #expect(try Self.answers(home) == expected, "\(kind.name), \(damage), rebuilt")
    }
  }

  /// The files of earlier releases are ignored, and removed or replaced when the derived files
  /// are written again.
  @Test func theFilesOfEarlierReleasesAreRemovedOrReplaced() throws {
    try withTemporaryFolder { root in
      let home = try Self.syncedFolder(root, "a")
      // As the last releases left them: a seal (of its own format), the times, and the digest
      // file (now the local index's digest section; any bytes: it is never read).
      try Data(try Data(contentsOf: Fixtures.url("formats/sync-seal-3"))).write(
        to: home.appendingPathComponent("sync.seal"))
      try Data(#"{"format":"stash-sync-times","version":1}"#.utf8).write(
        to: home.appendingPathComponent("sync-times.json"))
      try Data("stash.local.digest\n".utf8).write(
        to: home.appendingPathComponent("default.store.digest"))
      _ = try Self.open(home).consume("Koleston a")
      _ = try Self.open(home).folder.sync()
      for old in SyncState.predecessors {
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent(old).path))
      }
      for kind in Self.kinds {
        #expect(Self.isCurrent(kind, at: home.appendingPathComponent(kind.fileName).path))
      }
    }
  }
}
