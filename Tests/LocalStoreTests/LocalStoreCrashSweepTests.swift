import Foundation
import JSONLines
import LocalStore
import StashFiles
import StashModel
import StashTestSupport
import Testing

/// A crash at every moment of a save and of a compaction, through the file-system seam: before
/// each call, a write that stops at every byte, and a write whose unsynced rest is garbage.
/// The store then opens at the previous commit or the next one, never in between; opening for
/// reading changes nothing, and the next save works.
@Suite struct LocalStoreCrashSweepTests {
  static let device = DeviceID("00000000-0000-4000-8000-0000000000a1")!

  private func record(_ name: String, _ number: Int) -> Record {
    Item(
      id: RecordID("00000000-0000-4000-8000-\(String(format: "%012d", number))")!, name: name,
      quantity: Int64(number) + 5, createdAt: epoch
    ).record
  }

  private func open(_ folder: URL, _ files: any FileSystem, access: StoreAccess = .writing)
    throws -> LocalStore
  {
    try LocalStore.open(
      folder: folder.path, schemas: InventorySchemas.registry,
      lock: FolderLock(folder: folder.path, fileSystem: files), access: access,
      fileSystem: files)
  }

  /// A store with a little history: three items, one consumed twice, one deleted.
  private func template(_ folder: URL) throws {
    let store = try openStore(folder, deviceID: Self.device)
    for number in 1...3 { try store.insert(record("item \(number)", number)) }
    for _ in 0..<2 {
      try store.update("consume") { content, transaction in
        let row = content.row(for: record("", 1).key)!
        var item = try Item(record: row.record)
        item.quantity -= 1
        try transaction.replace(row.row, with: item.record)
      }
    }
    try store.update("delete") { content, transaction in
      transaction.delete(content.row(for: record("", 3).key)!, at: epoch)
    }
  }

  /// The saves swept: an insert, a delete (tombstone and row in one transaction), and a
  /// compaction (a temporary file, its fsync, the rename, the folder's fsync).
  static let operations = ["insert", "delete", "compaction"]

  private func perform(_ operation: String, on store: LocalStore) throws {
    switch operation {
    case "insert":
      try store.insert(record("a new item with a longer name", 9))
    case "delete":
      try store.update("delete") { content, transaction in
        transaction.delete(content.row(for: record("", 2).key)!, at: epoch)
      }
    default:
      try store.compact()
    }
  }

  @Test(arguments: operations)
  func aCrashAnywhereInASaveLeavesThePreviousOrTheNextCommit(operation: String) throws {
    try withTemporaryFolder(inMemory: true) { folder in
      let template = folder.appendingPathComponent("template")
      try self.template(template)
      let before = fingerprint(try open(template, POSIXFileSystem()))
      // The reference: the operation's calls, and the content after it.
      let reference = folder.appendingPathComponent("reference")
      try copyFolder(template, to: reference)
      let files = ScriptedFileSystem()
      let store = try open(reference, files)
      files.clearLog()
      try perform(operation, on: store)
      let calls = files.calls
      let after = fingerprint(try open(reference, POSIXFileSystem()))
      #expect(operation == "compaction" ? after == before : after != before)

      let points = CrashSweep.points(of: calls, seed: 42)
      var landedAfter = 0
      for point in points {
        let trial = folder.appendingPathComponent("trial")
        try copyFolder(template, to: trial)
        let files = ScriptedFileSystem()
        do {
          let store = try open(trial, files)
          files.crash(atCall: point.call, point.crash)
          try? perform(operation, on: store)
        }
        #expect(files.hasCrashed || point.call > calls.count, "\(operation): \(point)")
        let path = trial.appendingPathComponent(LocalStore.fileName).path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let read = fingerprint(try open(trial, POSIXFileSystem(), access: .reading))
        #expect(read == before || read == after, "\(operation): \(point)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes, "a reader wrote")
        let reopened = try open(trial, POSIXFileSystem())
        #expect(fingerprint(reopened) == read, "\(operation): \(point)")
        try reopened.insert(record("after the crash", 20))
        expectInvariants(reopened)
        if read == after && after != before { landedAfter += 1 }
      }
      print(
        "LocalStoreCrashSweepTests: \(operation): \(points.count) crashes over \(calls.count) "
          + "calls, \(landedAfter) at the next commit")
    }
  }
}
