import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// A folder's changes as an `AsyncSequence` (issue 27, item 3), used as an app would: with
/// `Stash` and `StashModel` imported only.
@Suite struct FolderChangeTests {
  @Test func aSaveInThisProcessIsToldAsSavedWithItsKey() async throws {
    try await withTemporaryFolderAsync { root in
      let device = try openDevice(root)
      let heard = Heard(device.folder.changes(polling: .milliseconds(20)))
      let item = try device.addItem(Item(name: "Koleston", quantity: 5, createdAt: epoch))
      let change = try await heard.first { if case .saved = $0 { true } else { false } }
      #expect(change == .saved([item.record.key]))
      heard.stop()
    }
  }

  @Test func aSaveByAnotherFolderOnTheSameFolderIsToldAsSavedElsewhere() async throws {
    try await withTemporaryFolderAsync { root in
      let watching = try openDevice(root)
      let other = try openDevice(root)
      let heard = Heard(watching.folder.changes(polling: .milliseconds(20)))
      let item = try other.addItem(Item(name: "Bleach", quantity: 2, createdAt: epoch))
      let change = try await heard.first { !$0.keys.isEmpty }
      #expect(change == .savedElsewhere([item.record.key]))
      #expect(watching.folder.record(item.record.key) != nil)  // read again, not only told
      heard.stop()
    }
  }

  @Test func cancellingTheTaskEndsTheSequence() async throws {
    try await withTemporaryFolderAsync { root in
      let device = try openDevice(root)
      let changes = device.folder.changes(polling: .milliseconds(20))
      let task = Task {
        var count = 0
        for await _ in changes { count += 1 }
        return count
      }
      try await Task.sleep(for: .milliseconds(50))
      task.cancel()
      _ = await task.value  // returns: the loop ended
      // A save after the end is not queued for anyone.
      _ = try device.addItem(Item(name: "Toner", quantity: 1, createdAt: epoch))
    }
  }

  @Test func aConflictOpenedByASyncAndSettledByAChoiceAreTold() async throws {
    try await withTemporaryFolderAsync { root in
      let pair = try NotePair(root)
      let a = try pair.open("a")
      let b = try pair.open("b")
      let note = Note(key: "Shopping", text: "Milk", at: epoch)
      try a.save(note)
      _ = try a.sync()
      _ = try b.sync()
      pair.advance(10)
      try a.update(Note.self, id: note.id) { $0.text = "Milk from A" }
      try b.update(Note.self, id: note.id) { $0.text = "Milk from B" }
      _ = try a.sync()
      let heard = Heard(b.changes(polling: .milliseconds(20)))
      _ = try b.sync()
      let opened = try await heard.first {
        if case .conflictsOpened = $0 { true } else { false }
      }
      let conflict = try #require(b.conflicts().first)
      #expect(opened == .conflictsOpened([conflict]))
      try b.resolveConflict(conflict.id.rawValue, keep: .mirror)
      let settled = try await heard.first {
        if case .conflictsSettled = $0 { true } else { false }
      }
      #expect(settled.keys == [note.record.key])
      let applied = try await heard.first {
        if case .applied(let keys) = $0 { keys.contains(note.record.key) } else { false }
      }
      #expect(applied.keys == [note.record.key])  // what the choice kept, written here
      heard.stop()
    }
  }

  @Test func aSyncsEndIsToldWithItsReport() async throws {
    try await withTemporaryFolderAsync { root in
      let home = root.appendingPathComponent("device")
      let cloud = root.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      try openDevice(home).folder.enableSync(cloud: cloud.path)
      let device = try openDevice(home)
      let heard = Heard(device.folder.changes(polling: .milliseconds(20)))
      let report = try device.folder.sync()
      let change = try await heard.first { if case .synced = $0 { true } else { false } }
      #expect(change == .synced(report))
      heard.stop()
    }
  }
}

/// The changes a sequence told, collected by a task of their own.
final class Heard: Sendable {
  private let changes = LockedBox<[FolderChange]>([])
  private let task: Task<Void, Never>

  init(_ sequence: AsyncStream<FolderChange>) {
    let changes = changes
    task = Task { for await change in sequence { changes.withLock { $0.append(change) } } }
  }

  /// The first change that fits, waiting up to 10 s for it.
  func first(
    where fits: @Sendable (FolderChange) -> Bool
  ) async throws -> FolderChange {
    for _ in 0..<500 {
      if let change = changes.withLock({ $0.first(where: fits) }) { return change }
      try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("No such change within 10 s; heard \(changes.withLock { $0 })")
    throw CancellationError()
  }

  func stop() { task.cancel() }
}
