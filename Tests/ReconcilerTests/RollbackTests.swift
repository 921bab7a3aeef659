import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Reconciler
import StashModel
import StashTestSupport
import Testing

/// A pass or a resolution writes the mirror, then the local store; when the local write fails
/// the mirror is cut back to where it was. That undo must be honest: the mirror never compacts
/// in between (an undo would then cut the wrong file, or nothing), an undo across a compaction
/// is refused, and a failed undo is reported.
@Suite struct RollbackTests {
  /// A policy under which every save compacts: each write of a pass is at the threshold.
  static let everySaveCompacts = CompactionPolicy(minimumLines: 0, linesPerLiveChange: 1)

  private func linesOf(_ path: String) throws -> Int {
    try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count
  }

  @Test func aPassWhoseMirrorWriteCrossesTheCompactionThresholdRollsBack() throws {
    // The case found on main, with the standard policy: the local row goes back to a snapshot
    // the mirror already has, so the pass's copy adds lines but no live version, and the
    // mirror is left exactly at the threshold.
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let stores = try TwoStores(folder, fileSystem: files)
      let item = try stores.addLocally(tube())
      try stores.pass()
      let original = try #require(
        stores.local.content.row(for: RecordKey(model: "item", id: item.id)))
      try stores.editLocally(item.id) { $0.quantity = 4 }
      try stores.pass()
      try stores.local.update("back") { content, transaction in
        try transaction.replace(content.row(for: original.record.key)!.row, with: original.record)
      }
      let lines = try linesOf(stores.mirror.path)
      let policy = CompactionPolicy.standard
      let threshold =
        policy.linesPerLiveChange * stores.mirror.content.liveChangeCount
        + policy.minimumLines
      try stores.mirror.update { _, transaction in
        for _ in 0..<(threshold - lines - 1) { transaction.recordTransfer(.import, at: epoch) }
      }
      let before = try stores.files()
      files.inject(.writeTo(suffix: LocalStore.fileName))
      #expect(throws: (any Error).self) { try stores.pass() }
      #expect(files.allFaultsFired)
      #expect(try stores.files() == before, "both stores are as they were, uncompacted")
      try stores.pass()
      stores.expectHealthy()
    }
  }

  @Test func aFailedLocalWriteRollsThePassBackWhenEverySaveCompacts() throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let stores = try TwoStores(folder, fileSystem: files, compaction: Self.everySaveCompacts)
      let item = try stores.addLocally(tube())
      try stores.mirror.update { _, transaction in transaction.bindZone("zone-1") }
      let before = try stores.files()
      files.inject(.writeTo(suffix: LocalStore.fileName))
      #expect(throws: (any Error).self) { try stores.pass() }
      #expect(files.allFaultsFired)
      #expect(try stores.files() == before, "both stores are as they were, uncompacted")
      #expect(stores.mirrorItem(item.id) == nil)

      try stores.pass()
      #expect(stores.mirrorItem(item.id)?.name == item.name)
      #expect(try linesOf(stores.mirror.path) == 4, "compacted once the pass was written")
      stores.expectHealthy()
    }
  }

  @Test func aFailedLocalWriteRollsAResolutionBackWhenEverySaveCompacts() throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let a = try TwoStores(folder.appendingPathComponent("a"))
      let b = try TwoStores(
        folder.appendingPathComponent("b"), device: ResolutionTests.deviceB, fileSystem: files,
        compaction: Self.everySaveCompacts)
      let item = try a.addLocally(tube(quantity: 5))
      try a.pass()
      try a.deliver(to: b)
      try b.pass()
      try a.editLocally(item.id) { $0.quantity = 4 }
      try b.editLocally(item.id) { $0.quantity = 2 }
      try a.pass()
      try a.deliver(to: b)
      try b.pass()
      let conflict = try #require(b.openConflicts.first)
      let before = try b.files()
      files.inject(.writeTo(suffix: LocalStore.fileName))
      #expect(throws: (any Error).self) {
        try b.reconciler.resolve(conflict.id, choice: .local)
      }
      #expect(try b.files() == before)
      #expect(b.openConflicts.map(\.id) == [conflict.id])

      try b.reconciler.resolve(conflict.id, choice: .local)
      #expect(b.openConflicts.isEmpty)
      #expect(b.localItem(item.id)?.quantity == 2)
      b.expectHealthy()
    }
  }

  @Test func anUndoAcrossACompactionIsRefused() throws {
    try withTemporaryFolder { folder in
      let stores = try TwoStores(folder)
      let mark = stores.mirror.file.mark
      try stores.mirror.update { _, transaction in transaction.bindZone("zone-1") }
      try stores.mirror.file.compact()
      let compacted = try stores.files()
      #expect(throws: LogStoreError.self) { try stores.mirror.file.rollBack(to: mark) }
      #expect(try stores.files() == compacted, "nothing was cut")
      #expect(stores.mirror.content.zone == "zone-1")
    }
  }

  @Test func aFailedRollbackIsReportedAndTheNextPassRecovers() throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let stores = try TwoStores(folder, fileSystem: files)
      let item = try stores.addLocally(tube())
      files.inject(.writeTo(suffix: LocalStore.fileName))
      // The local store's own cut-back truncates first; the mirror's undo is the second.
      files.inject(.truncate, afterSkipping: 1)
      #expect {
        try stores.pass()
      } throws: { error in
        "\(error)".contains(MirrorStore.fileName)
      }
      #expect(files.allFaultsFired)
      // The mirror kept the pass's copy (as after a crash between the two writes): the next
      // pass finds it there and agrees.
      try stores.pass()
      #expect(stores.mirrorItem(item.id)?.name == item.name)
      #expect(try stores.pass().changedAnything == false)
      stores.expectHealthy()
    }
  }
}
