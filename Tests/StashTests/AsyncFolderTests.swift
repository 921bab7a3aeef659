import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

#if canImport(Observation)
  import Observation
#endif

/// The `async` forms (issue 27, item 4) and an `@Observable` model driven by a folder's
/// changes (item 3).
@Suite struct AsyncFolderTests {
  /// Where each save's work ran, as the folder's save observer (called on the saving thread)
  /// saw it: on Stash's I/O queue, never the main thread.
  @MainActor @Test func aSaveFromTheMainActorRunsOnStashsIOQueue() async throws {
    // The main actor runs its jobs on the main queue: marked, it tells where code runs.
    DispatchQueue.main.setSpecific(key: mainQueue, value: true)
    #expect(DispatchQueue.getSpecific(key: mainQueue) == true)
    #expect(!StashIO.isCurrent)
    try await onMainActor { root in
      let device = try openDevice(root)
      let places = LockedBox<[Place]>([])
      device.folder.observeSaves { _ in
        places.withLock {
          $0.append(
            Place(
              io: StashIO.isCurrent,
              main: Thread.isMainThread || DispatchQueue.getSpecific(key: mainQueue) == true))
        }
      }
      let item = Item(name: "Koleston", quantity: 5, createdAt: epoch)
      try await device.folder.async.save(item.record)
      let key = item.record.key
      _ = try await device.folder.async.delete(key)
      // A transaction of two saves: one save, off the main actor too.
      let saved = try await device.folder.async.write { tx in
        for name in ["Toner", "Foil"] {
          try tx.save(Item(name: name, quantity: 1, createdAt: epoch).record)
        }
        return 2
      }
      #expect(saved == 2 && device.folder.records(of: "item").count == 2)
      let seen = places.withLock { $0 }
      #expect(seen.count == 3)
      #expect(seen.allSatisfy { $0.io && !$0.main })
      #expect(DispatchQueue.getSpecific(key: mainQueue) == true)  // back on the main actor
      #expect(device.folder.record(key) == nil)
    }
  }

  @Test func aTaskCancelledBeforeTheWorkStartsChangesNothing() async throws {
    try await withTemporaryFolderAsync { root in
      let device = try openDevice(root)
      let before = try Data(contentsOf: root.appendingPathComponent("default.store"))
      let item = Item(name: "Toner", quantity: 1, createdAt: epoch)
      let task = Task {
        withUnsafeCurrentTask { $0?.cancel() }  // cancelled before the save is asked for
        try await device.folder.async.save(item.record)
      }
      await #expect(throws: StashIO.cancelled) { try await task.value }
      let after = try Data(contentsOf: root.appendingPathComponent("default.store"))
      #expect(before == after)
    }
  }

  #if canImport(Observation)
    @MainActor @Test func anObservableModelFollowsTheFolder() async throws {
      try await onMainActor { root in
        let device = try openDevice(root)
        let other = try openDevice(root)  // as another process would
        let model = ItemList(device.folder)
        let following = Task { await model.follow() }
        _ = try other.addItem(Item(name: "Bleach", quantity: 2, createdAt: epoch))
        for _ in 0..<500 where model.names != ["Bleach"] {
          try await Task.sleep(for: .milliseconds(20))
        }
        #expect(model.names == ["Bleach"])
        following.cancel()
        await following.value
      }
    }
  #endif
}

/// The main queue's mark.
let mainQueue = DispatchSpecificKey<Bool>()

/// Where a save's work ran.
struct Place: Sendable {
  var io: Bool
  var main: Bool
}

/// Runs `body` on the main actor with a temporary folder, removed afterwards.
@MainActor func onMainActor(_ body: @MainActor (URL) async throws -> Void) async throws {
  let root = FileManager.default.temporaryDirectory.appendingPathComponent(
    "stash-test-\(UUID().uuidString.lowercased())")
  try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(at: root) }
  try await body(root)
}

#if canImport(Observation)
  /// What an app's view model looks like: the item names of a folder, kept current by its
  /// changes, read and written on the main actor.
  @MainActor @Observable final class ItemList {
    private(set) var names: [String] = []
    private let folder: SyncFolder

    init(_ folder: SyncFolder) {
      self.folder = folder
      reload()
    }

    /// Reloads after every change that names records, until the task is cancelled.
    func follow() async {
      for await change in folder.changes(polling: .milliseconds(20)) where !change.keys.isEmpty {
        reload()
      }
    }

    private func reload() {
      names = folder.all(Item.self).map(\.name).sorted()
    }
  }
#endif
