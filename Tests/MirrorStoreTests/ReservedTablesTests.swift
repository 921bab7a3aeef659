import Foundation
import JSONLines
import StashBase
import StashModel
import StashTestSupport
import Testing

@testable import MirrorStore

/// A large save (a first sync's pass, an import) makes room in the mirror's tables for what
/// it adds before applying it (issue 26, item 4): grown by doubling, a table of 100,000
/// records kept room for 131,072, and while it grew its old and new storage were both alive.
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
}
