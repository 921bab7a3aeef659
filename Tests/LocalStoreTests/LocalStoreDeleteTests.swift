import Foundation
import JSONLines
import LocalStore
import StashBase
import StashModel
import StashTestSupport
import Testing

@Suite struct LocalStoreDeleteTests {
  @Test func aDeleteWritesItsTombstoneAndRemovesTheRowInOneTransaction() throws {
    try withTemporaryFolder { folder in
      let store = try openStore(folder)
      let tube = item("Koleston")
      try store.insert(tube.record)
      let linesBefore = store.file.header  // unchanged header
      try store.update("the delete") { content, transaction in
        transaction.delete(content.row(for: tube.record.key)!, at: epoch)
      }
      #expect(store.row(tube.record.key) == nil)
      let tombstone = try #require(store.content.tombstones[tube.record.key])
      #expect(tombstone.deletedHash == tube.record.snapshotHash)
      #expect(store.file.header == linesBefore)
      // The last transaction holds exactly the tombstone, then the removal.
      let text = try String(contentsOfFile: store.path, encoding: .utf8)
      let last = text.split(separator: "\n").suffix(3).map(String.init)
      #expect(last[0].contains(#""op":{"tombstone""#))
      #expect(last[1].contains(#""op":{"remove""#))
      #expect(last[2].contains(#""commit":2"#))
      expectInvariants(store)
    }
  }

  @Test(arguments: [
    ScriptedFileSystem.Fault.write(keepingBytes: 0),
    .write(keepingBytes: 100),
    .synchronize,
  ])
  func aFailedDeleteLeavesTheRowLiveAndTheOldTombstoneInPlace(
    fault: ScriptedFileSystem.Fault
  ) throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let store = try openStore(folder, fileSystem: files)
      let tube = item("Koleston")
      // Two rows carry one id (a duplicate); deleting the first writes a tombstone, so
      // deleting the second updates an existing tombstone.
      try store.insert(tube.record)
      var twin = tube
      twin.quantity = 4
      let twinRow = try store.insert(twin.record)
      let earlier = Timestamp(secondsSince1970: 1_000)!
      try store.update("the first delete") { content, transaction in
        let first = content.rows(for: tube.record.key).first { $0.row != twinRow }!
        transaction.delete(first, at: earlier)
      }
      let oldTombstone = store.content.tombstones[tube.record.key]
      let fileBefore = try Data(contentsOf: URL(fileURLWithPath: store.path))
      let before = fingerprint(store)

      files.inject(fault)
      #expect {
        try store.update("the delete of 'Koleston'") { content, transaction in
          transaction.delete(content.row(for: tube.record.key)!, at: epoch)
        }
      } throws: { error in
        guard case SaveError<LocalStoreError, Never>.store(.notSaved) = error else { return false }
        let message = "\(error)"
        return message.contains("the delete of 'Koleston'")
          && message.contains("none of it was saved and the store is as it was before")
          && message.hasSuffix("make the change again")
      }
      #expect(files.allFaultsFired)
      #expect(fingerprint(store) == before, "in memory: nothing half-deleted")
      #expect(store.content.tombstones[tube.record.key] == oldTombstone)
      #expect(store.row(tube.record.key)?.record == twin.record)
      #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == fileBefore, "on disk too")
      #expect(fingerprint(try openStore(folder)) == before, "and after a reopen")

      try store.update("the delete again") { content, transaction in
        transaction.delete(content.row(for: tube.record.key)!, at: epoch)
      }
      #expect(store.row(tube.record.key) == nil)
      #expect(store.content.tombstones[tube.record.key]?.deletedAt == epoch)
      expectInvariants(store)
    }
  }

  @Test func aBodyThatThrowsWritesNothing() throws {
    struct Refused: Error {}
    try withTemporaryFolder { folder in
      let store = try openStore(folder)
      try store.insert(item("Koleston").record)
      let before = try Data(contentsOf: URL(fileURLWithPath: store.path))
      #expect {
        try store.update("nothing") { content, transaction in
          try transaction.insert(item("Other").record)
          throw Refused()
        }
      } throws: { error in
        // The body's own error, as it threw it.
        guard case SaveError<LocalStoreError, any Error>.refused(let refusal) = error else {
          return false
        }
        return refusal is Refused
      }
      #expect(try Data(contentsOf: URL(fileURLWithPath: store.path)) == before)
      #expect(store.content.rows.count == 1)
    }
  }
}
