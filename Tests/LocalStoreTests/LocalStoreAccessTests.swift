import Foundation
import JSONLines
import LocalStore
import StashModel
import StashTestSupport
import Synchronization
import Testing

/// A store opened for reading changes no file until a save has something to write; then it
/// takes write access, and sets aside what followed the last commit, telling its observers.
@Suite struct LocalStoreAccessTests {
  private func open(
    _ folder: URL, access: StoreAccess, create: Bool = false
  ) throws -> LocalStore {
    try LocalStore.open(
      folder: folder.path, schemas: InventorySchemas.registry,
      lock: FolderLock(folder: folder.path),
      create: create ? .init(deviceName: "salon-mac", time: epoch) : nil, access: access)
  }

  private func path(_ folder: URL) -> String {
    folder.appendingPathComponent(LocalStore.fileName).path
  }

  /// A store whose last commit (the insert of 'Conditioner') has a changed byte.
  private func storeWithADamagedLastCommit(_ folder: URL) throws -> Data {
    let store = try openStore(folder)
    try store.insert(item("Shampoo").record)
    try store.insert(item("Conditioner").record)
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(folder))))
    bytes[bytes.dropLast().lastIndex(of: UInt8(ascii: "\n"))! + 24] ^= 0x02
    try Data(bytes).write(to: URL(fileURLWithPath: path(folder)))
    return Data(bytes)
  }

  @Test func readingAStoreWithADamagedLastCommitChangesNothingEvenWhenASaveWritesNothing()
    throws
  {
    try withTemporaryFolder { folder in
      let damaged = try storeWithADamagedLastCommit(folder)
      let store = try open(folder, access: .reading)
      #expect(store.openReport.tail?.kind == .damaged)
      #expect(store.openReport.tail?.keptAt == nil)
      #expect(store.content.records(of: "item").count == 1)
      try store.refresh()
      try store.update("nothing") { _, _ in }
      #expect {
        try store.update("a refused change") { _, _ throws(ModelError) in throw ModelError("No") }
      } throws: { error in
        guard case SaveError<LocalStoreError, ModelError>.refused(let refusal) = error else {
          return false
        }
        return refusal == ModelError("No")
      }
      #expect(try Data(contentsOf: URL(fileURLWithPath: path(folder))) == damaged)
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
          == ["default.store", "lock"])
    }
  }

  @Test func theFirstSaveOfAReadingStoreSetsTheDamagedTailAsideAndTellsItsObservers() throws {
    try withTemporaryFolder { folder in
      _ = try storeWithADamagedLastCommit(folder)
      let store = try open(folder, access: .reading)
      let told = Mutex<[TailReport]>([])
      store.file.observeTails { tail in told.withLock { $0.append(tail) } }
      try store.insert(item("Soap").record)
      let tails = told.withLock { $0 }
      #expect(tails.count == 1)
      #expect(tails.first?.kind == .damaged)
      let kept = try #require(tails.first?.keptAt)
      #expect(FileManager.default.fileExists(atPath: kept))
      let reopened = try open(folder, access: .reading)
      #expect(reopened.openReport.tail == nil)
      #expect(reopened.content.records(of: "item").map(\.id).count == 2)
      expectInvariants(reopened)
    }
  }

  @Test func aMissingStoreOpenedForReadingIsCreatedOnlyByItsFirstSave() throws {
    try withTemporaryFolder { folder in
      let store = try open(folder, access: .reading, create: true)
      #expect(!store.file.fileExists)
      #expect(store.content.settings.name == "salon-mac")
      try store.update("nothing") { _, _ in }
      #expect(!FileManager.default.fileExists(atPath: path(folder)))
      try store.insert(item("Soap").record)
      #expect(store.file.fileExists)
      let reopened = try open(folder, access: .reading)
      #expect(reopened.storeID == store.storeID)
      #expect(reopened.content.settings.name == "salon-mac")
      #expect(reopened.content.records(of: "item").count == 1)
    }
  }

  @Test func aStoreCreatedByAnotherProcessMeanwhileIsReadNotCreatedAgain() throws {
    try withTemporaryFolder { folder in
      let waiting = try open(folder, access: .reading, create: true)
      let other = try openStore(folder)
      try other.insert(item("Shampoo").record)
      try waiting.insert(item("Soap").record)
      #expect(waiting.storeID == other.storeID)
      try other.refresh()
      #expect(Set(other.content.records(of: "item").map(\.id)).count == 2)
    }
  }
}
