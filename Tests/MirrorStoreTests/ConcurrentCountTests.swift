import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The records with concurrent versions are counted by their leaves, read where they are held
/// (copying every record's versions out of the table was a cache miss per record at a million):
/// they must be exactly the records whose side ``MirrorSide/isConcurrent`` says so.
@Suite struct ConcurrentCountTests {
  static let device = DeviceID("00000000-0000-4000-8000-00000000c0c0")!
  static let epoch = Timestamp(secondsSince1970: 1_764_441_600)!

  func version(_ record: Record, over parents: Set<VersionID> = []) -> MirrorVersion {
    MirrorVersion(
      snapshot: .record(record), parents: parents, generation: Int64(parents.count + 1),
      author: Self.device, authoredAt: Self.epoch)
  }

  func tombstone(_ record: Record, over parent: MirrorVersion) -> MirrorVersion {
    MirrorVersion(
      snapshot: .tombstone(Tombstone(deleting: record, at: Self.epoch)), parents: [parent.id],
      generation: 2, author: Self.device, authoredAt: Self.epoch)
  }

  @Test func concurrentRecordsAreThoseWhoseLeavesDiffer() throws {
    try withTemporaryFolder { folder in
      let mirror = try MirrorStore.open(
        folder: folder.path, schemas: InventorySchemas.registry,
        lock: FolderLock(folder: folder.path), create: (Self.device, Self.epoch, nil))
      var concurrent = Set<RecordKey>()
      try mirror.update { _, transaction in
        for index in 0..<40 {
          let id = RecordID.make()
          let first = Item(id: id, name: "tube \(index)", quantity: 1, createdAt: Self.epoch)
          var second = first
          second.quantity = 2
          let root = version(first.record)
          transaction.merge(root)
          switch index % 5 {
          case 0:  // one version
            break
          case 1:  // a chain: one leaf
            transaction.merge(version(second.record, over: [root.id]))
          case 2:  // two leaves with different snapshots: concurrent
            transaction.merge(version(second.record, over: [root.id]))
            var third = first
            third.quantity = 3
            transaction.merge(version(third.record, over: [root.id]))
            concurrent.insert(first.record.key)
          case 3:  // two tombstones as leaves: they agree to delete
            transaction.merge(tombstone(first.record, over: root))
            transaction.merge(tombstone(second.record, over: root))
          default:  // an edit and a deletion: concurrent
            transaction.merge(version(second.record, over: [root.id]))
            transaction.merge(tombstone(first.record, over: root))
            concurrent.insert(first.record.key)
          }
        }
      }
      let content = mirror.content
      let bySide = Set(content.keys.filter { content.side(for: $0).isConcurrent })
      #expect(bySide == concurrent)
      #expect(content.concurrentRecordCount(summary: nil) == concurrent.count)
      #expect(concurrent.count == 16)
    }
  }
}
