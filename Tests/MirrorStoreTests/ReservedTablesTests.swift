import Foundation
import JSONLines
import StashBase
import StashModel
import StashTestSupport
import Testing

@testable import MirrorStore

/// The room the mirror's tables keep (issue 26, item 4). A large save (a first sync's pass, an
/// import) makes room for what it adds before applying it: grown by doubling, a table of
/// 100,000 records kept room for 131,072, and while it grew its old and new storage were both
/// alive. An export reads its versions from the tables, in an order that takes 8 bytes a
/// version: a list of them (136 bytes a version, grown by doubling at first) was alive at a
/// first sync's peak.
@Suite struct ReservedTablesTests {
  @Test func aLargeSaveGrowsTheMirrorsTablesOnce() throws {
    try withTemporaryFolder { folder in
      let mirror = try CheckedIdentityMemoryTests.openMirror(folder)
      try CheckedIdentityMemoryTests.writeItems(3_100, named: "thing", into: mirror)
      let content = mirror.content
      #expect(content.versions.count == 3_100)
      #expect(content.versions.entryCapacity < 3_200, "room for \(content.versions.entryCapacity)")
      #expect(content.pending.count == 3_100)
      #expect(content.pending.capacity < 3_200)
      #expect(content.versionLines.capacity < 3_200, "room for \(content.versionLines.capacity)")
      // A second save of as many new records grows each table once more, to what it holds.
      try CheckedIdentityMemoryTests.writeItems(3_100, named: "other", into: mirror)
      #expect(mirror.content.versions.entryCapacity < 6_300)
      // A save of a new version of each of those records adds no record: no room for one.
      let before = mirror.content.versions.entryCapacity
      var edits = [(snapshot: Snapshot, parents: Set<VersionID>)]()
      for key in mirror.content.keys {
        let leaf = try #require(mirror.content.side(for: key).winner)
        guard case .record(let record) = leaf.snapshot else { continue }
        var item = try Item(record: record)
        item.quantity += 1
        edits.append((.record(item.record), [leaf.id]))
      }
      try mirror.update { _, transaction in
        transaction.write(
          edits, author: CheckedIdentityMemoryTests.device, at: CheckedIdentityMemoryTests.epoch)
      }
      #expect(mirror.content.versionCount == 12_400)
      #expect(mirror.content.versions.entryCapacity == before)
    }
  }

  /// The mirror's index is built in room made once for the whole file: grown by doubling from
  /// 64 bytes a version, its body held room for 128 (12.8 MB at 100,000 versions, beside
  /// the 6.4 MB it was copied from, at a second device's import's peak).
  @Test func theMirrorsIndexIsBuiltInRoomMadeOnce() throws {
    try withTemporaryFolder { folder in
      let mirror = try CheckedIdentityMemoryTests.openMirror(folder)
      try CheckedIdentityMemoryTests.writeItems(3_100, named: "thing", into: mirror)
      let built = mirror.file.withLog { log, content in
        MirrorIndex.build(log: log, content: content)
      }
      let bytes = try #require(built ?? nil)
      #expect(bytes.capacity <= bytes.count + bytes.count / 8, "room for \(bytes.capacity)")
    }
  }

  /// An export that sends every pending version leaves the pending set without room: read
  /// again, a mirror whose first sync sent 100,000 versions kept room for them all.
  @Test func anEmptiedPendingSetKeepsNoRoom() throws {
    try withTemporaryFolder { folder in
      let mirror = try CheckedIdentityMemoryTests.openMirror(folder)
      try CheckedIdentityMemoryTests.writeItems(3_100, named: "thing", into: mirror)
      let refs = mirror.content.pending.map { $0 }
      try mirror.update { _, transaction in
        transaction.markExported(Array(refs.prefix(3_000)), segment: "devices/a/000001.jsonl")
      }
      #expect(mirror.content.pending.count == 100)
      try mirror.update { _, transaction in
        transaction.markExported(Array(refs.suffix(100)), segment: "devices/a/000002.jsonl")
      }
      #expect(mirror.content.pending.isEmpty)
      #expect(mirror.content.pending.capacity == 0)
      let reread = try CheckedIdentityMemoryTests.openMirror(folder)
      #expect(reread.content.pending.isEmpty && reread.content.pending.capacity == 0)
    }
  }

  @Test func thePendingVersionsHoldOnlyTheirOrder() throws {
    try withTemporaryFolder { folder in
      let mirror = try CheckedIdentityMemoryTests.openMirror(folder)
      try CheckedIdentityMemoryTests.writeItems(3_100, named: "thing", into: mirror)
      let pending = mirror.content.pendingVersions
      #expect(pending.count == 3_100)
      #expect(pending.orderCapacity <= pending.count + 16, "room for \(pending.orderCapacity)")
      let order = pending.map { [$0.key.model, $0.key.id.rawValue, $0.id.description] }
      #expect(order == order.sorted { $0.lexicographicallyPrecedes($1) })
    }
  }
}
