import Foundation
import JSONLines
import MirrorStore
import StashModel
import StashTestSupport
import Testing

/// A write builds on the generations of the versions its transaction added before it, merged
/// or written. The table of those generations is built only when a write names parents (a
/// first sync's writes name none, and an import only merges: issue 26, item 5); the
/// generations must come out as they did when it was kept up to date at every change.
@Suite struct TransactionGenerationTests {
  static let epoch = Timestamp(secondsSince1970: 1_764_441_600)!
  static let alice = DeviceID("00000000-0000-4000-8000-00000000a11c")!
  static let bob = DeviceID("00000000-0000-4000-8000-000000000b0b")!

  func openMirror(_ folder: URL) throws -> MirrorStore {
    try MirrorStore.open(
      folder: folder.path, schemas: InventorySchemas.registry,
      lock: FolderLock(folder: folder.path), create: (Self.alice, Self.epoch, nil))
  }

  func tube(_ quantity: Int64, id: RecordID) -> Snapshot {
    .record(Item(id: id, name: "Koleston", quantity: quantity, createdAt: Self.epoch).record)
  }

  @Test func writesBuildOnWhatTheTransactionMergedAndWrote() throws {
    try withTemporaryFolder { folder in
      let mirror = try openMirror(folder)
      let id = RecordID.make()
      let generations = try mirror.update { _, transaction in
        let merged = MirrorVersion(
          snapshot: tube(1, id: id), parents: [], generation: 7, author: Self.bob,
          authoredAt: Self.epoch)
        transaction.merge(merged)
        let over = transaction.write(
          tube(2, id: id), parents: [merged.id], author: Self.alice, at: Self.epoch)
        let root = transaction.write(
          tube(3, id: id), parents: [], author: Self.alice, at: Self.epoch)
        let other = MirrorVersion(
          snapshot: tube(4, id: id), parents: [], generation: 3, author: Self.bob,
          authoredAt: Self.epoch)
        transaction.merge(other)
        let both = transaction.write(
          tube(5, id: id), parents: [over.id, other.id], author: Self.alice, at: Self.epoch)
        return [over, root, both].map(\.generation)
      }
      #expect(generations == [8, 1, 9])
    }
  }

  /// One call writing a chain of 2,000 versions, each over the one before (ids derived ahead):
  /// each is one generation past it.
  @Test func aLongChainInOneCallCountsUp() throws {
    try withTemporaryFolder { folder in
      let mirror = try openMirror(folder)
      let id = RecordID.make()
      var writes = [(snapshot: Snapshot, parents: Set<VersionID>)]()
      var previous: VersionID?
      for quantity in 0..<2_000 {
        let snapshot = tube(Int64(quantity), id: id)
        let parents = previous.map { Set([$0]) } ?? []
        writes.append((snapshot, parents))
        previous = VersionID.derive(snapshot: snapshot.hash, parents: parents)
      }
      let written = try mirror.update { _, transaction in
        transaction.write(writes, author: Self.alice, at: Self.epoch)
      }
      let wrong = zip(Int64(1)..., written).first { $0.0 != $0.1.generation }
      #expect(wrong == nil, "version \(wrong?.0 ?? 0) has generation \(wrong?.1.generation ?? 0)")
      #expect(written.last?.id == previous)
    }
  }
}
