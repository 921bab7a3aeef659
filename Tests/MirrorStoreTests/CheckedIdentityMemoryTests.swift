import Foundation
import JSONLines
import StashModel
import StashTestSupport
import Testing

@testable import MirrorStore

/// What the mirror keeps of the versions a save of this process wrote, until the next check
/// (issue 26, item 4): a first sync's pass notes every version it writes, and they wait
/// through the local store's write for the export's check. Kept in a dictionary by reference
/// with room to grow, they cost 4 MB of a 10,000-item first sync's 39.6 MB peak; kept as saved
/// (the save's own changes, shared rather than copied out), each costs its own size.
@Suite(.serialized) struct CheckedIdentityMemoryTests {
  /// Over 3,072, so that a dictionary of them needs 8,192 buckets.
  static let count = 3100

  static let epoch = Timestamp(secondsSince1970: 1_764_441_600)!
  static let device = DeviceID("00000000-0000-4000-8000-00000000a11c")!

  /// A new mirror in `folder`, of ``device``.
  static func openMirror(_ folder: URL) throws -> MirrorStore {
    try MirrorStore.open(
      folder: folder.path, schemas: InventorySchemas.registry,
      lock: FolderLock(folder: folder.path), create: (device, epoch, nil))
  }

  /// Writes a first version of `count` new items, as a pass writes them.
  static func writeItems(_ count: Int, named prefix: String, into mirror: MirrorStore) throws {
    let writes = (0..<count).map { index in
      (
        snapshot: Snapshot.record(
          Item(name: "\(prefix) \(index)", quantity: 1, createdAt: epoch).record),
        parents: Set<VersionID>()
      )
    }
    try mirror.update { _, transaction in transaction.write(writes, author: device, at: epoch) }
  }

  @Test func theVersionsASaveNotesCostTheirOwnSize() throws {
    guard HeapUsage.isAvailable else { return }
    try withTemporaryFolder { folder in
      let mirror = try Self.openMirror(folder)
      // Twice: the first check runs here, so that the child finds everything it needs ready.
      var perVersion: Int?
      for round in 0..<2 {
        try Self.writeItems(Self.count, named: "thing \(round)", into: mirror)
        // A check takes the record of what was saved, and starts it afresh.
        guard round > 0 else {
          try mirror.verify([])
          continue
        }
        perVersion = HeapUsage.measuredAlone {
          let before = HeapUsage.bytesInUse
          try? mirror.verify([])
          return (before - HeapUsage.bytesInUse) / Self.count
        }
      }
      let freed = try #require(perVersion)
      let own = MemoryLayout<MirrorVersion>.stride
      #expect(freed < own + 32, "\(freed) bytes per version of \(own)")
    }
  }
}
