import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

private let epoch = Timestamp(secondsSince1970: 1_764_441_600)!
private let alice = DeviceID("00000000-0000-4000-8000-00000000a11c")!

private func tube(_ quantity: Int64) -> Record {
  Item(
    id: RecordID("3f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f")!, name: "Koleston 7/1",
    quantity: quantity, createdAt: epoch
  ).record
}

/// DESIGN's version identity: a version's id is SHA-256 over its snapshot hash and its sorted
/// parent ids, so a record that returns to an earlier snapshot makes a new version, never a
/// cycle.
@Suite struct VersionIdentityTests {
  @Test func idsMatchTheGoldenVectorsComputedInPython() throws {
    guard
      case .array(let vectors) = try JSONParser.parse(try Fixtures.bytes("versions/vectors.json"))
    else { throw ModelError("vectors.json is not an array") }
    #expect(vectors.count == 8)
    for case .object(let vector) in vectors {
      guard case .string(let snapshot)? = vector["snapshot"], case .string(let id)? = vector["id"],
        case .array(let parents)? = vector["parents"]
      else { throw ModelError("a vector needs snapshot, parents and id") }
      let parentIDs = Set(
        parents.compactMap { value -> VersionID? in
          guard case .string(let text) = value else { return nil }
          return VersionID(hex: text)
        })
      let derived = VersionID.derive(snapshot: SnapshotHash(hex: snapshot)!, parents: parentIDs)
      #expect(derived.hex == id)
    }
  }

  @Test func returningToAnEarlierSnapshotMakesANewVersionNotACycle() throws {
    try withTemporaryFolder { folder in
      let mirror = try MirrorStore.open(
        folder: folder.path, schemas: InventorySchemas.registry,
        lock: FolderLock(folder: folder.path), create: (alice, epoch, nil))
      // A frozen clock: 5, then 6, then 5 again, with the same updatedAt.
      let (first, again) = try mirror.update { _, transaction in
        let first = transaction.write(.record(tube(5)), parents: [], author: alice, at: epoch)
        let second = transaction.write(
          .record(tube(6)), parents: [first.id], author: alice, at: epoch)
        let again = transaction.write(
          .record(tube(5)), parents: [second.id], author: alice, at: epoch)
        return (first, again)
      }
      #expect(first.hash == again.hash && first.id != again.id)
      let content = mirror.content
      #expect(content.versionCount == 3)
      #expect(content.side(for: first.key).leaves.map(\.id) == [again.id])
      #expect(content.leafSnapshot(of: first.key) == first.hash)
      #expect(content.checkInvariants() == [])
    }
  }

  @Test func severalLeavesWithOneSnapshotAreOneMirrorRow() throws {
    let root = MirrorVersion(
      snapshot: .record(tube(5)), parents: [], generation: 1, author: alice, authoredAt: epoch)
    let other = MirrorVersion(
      snapshot: .record(tube(7)), parents: [], generation: 1, author: alice, authoredAt: epoch)
    // The same content written over two different histories: two ids, one snapshot.
    let overRoot = MirrorVersion(
      snapshot: .record(tube(4)), parents: [root.id], generation: 2, author: alice,
      authoredAt: epoch)
    let overOther = MirrorVersion(
      snapshot: .record(tube(4)), parents: [other.id], generation: 2, author: alice,
      authoredAt: epoch)
    #expect(overRoot.id != overOther.id && overRoot.hash == overOther.hash)
    let side = MirrorSide(leaves: [overRoot, overOther])
    #expect(!side.isConcurrent)
    #expect(side.distinctLeaves.count == 1)
    #expect(MirrorSide(leaves: [overRoot, other]).isConcurrent)
  }

  @Test func aFormat1MirrorWithACycleUpgradesOnOpenAndKeepsTheOldFileAside() throws {
    try withTemporaryFolder { folder in
      let original = try Fixtures.bytes("formats/format-1-frozen-clock/home/cloud.store")
      let path = folder.appendingPathComponent(MirrorStore.fileName).path
      try Data(original).write(to: URL(fileURLWithPath: path))
      let mirror = try MirrorStore.open(
        folder: folder.path, schemas: InventorySchemas.registry,
        lock: FolderLock(folder: folder.path))
      #expect(mirror.file.header.version == MirrorContent.version)
      let kept = try Data(contentsOf: URL(fileURLWithPath: path + ".format-1"))
      #expect([UInt8](kept) == original, "the format-1 file is kept as it was")
      let content = mirror.content
      #expect(content.checkInvariants() == [])
      // 5 tubes, then 6, then 5 again: format 1 made the two name each other and left no
      // leaf; the upgrade keeps the last edit (the highest generation) as the leaf.
      let key = try #require(content.versions.keys.first)
      let five = SnapshotHash(
        hex: "113c3ef54bed3283499bd1810014f00239da17f9d2903d34b3b3e6a00055be9b")
      #expect(content.leafSnapshot(of: key) == five)
      #expect(content.versionCount == 2)
      #expect(content.pending.isEmpty && content.exportedSegments.count == 3)
      // The upgraded file reads back the same, and is not upgraded twice.
      let reopened = try MirrorStore.open(
        folder: folder.path, schemas: InventorySchemas.registry,
        lock: FolderLock(folder: folder.path))
      #expect(reopened.content.changesForCompaction == content.changesForCompaction)
      #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: path + ".format-1"))) == original)
    }
  }
}
