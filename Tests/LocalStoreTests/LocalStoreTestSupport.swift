import Foundation
import JSONLines
import LocalStore
import StashFiles
import StashModel
import StashTestSupport
import Testing

let epoch = Timestamp(secondsSince1970: 1_764_441_600)!

/// Opens (creating if needed) the local store of `folder` with its own lock, as a separate
/// process would.
func openStore(
  _ folder: URL, fileSystem: any FileSystem = POSIXFileSystem(), deviceID: DeviceID? = nil
) throws -> LocalStore {
  try LocalStore.open(
    folder: folder.path, schemas: InventorySchemas.registry,
    lock: FolderLock(folder: folder.path, fileSystem: fileSystem),
    create: .init(deviceID: deviceID ?? .make(), deviceName: "salon-mac", time: epoch),
    fileSystem: fileSystem)
}

func item(_ name: String, quantity: Int64 = 5, photo: BlobRef? = nil) -> Item {
  Item(name: name, quantity: quantity, unit: "tube", photo: photo, createdAt: epoch)
}

/// The store's content as the list of changes that rebuild it: equal lists, equal content.
func fingerprint(_ store: LocalStore) -> [LocalChange] {
  store.content.changesForCompaction
}

/// Fails the test with every invariant the store breaks.
func expectInvariants(_ store: LocalStore, sourceLocation: SourceLocation = #_sourceLocation) {
  let problems = store.content.checkInvariants()
  #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
}

extension LocalStore {
  /// Inserts a record in its own save; throws the store's error or the model's refusal.
  @discardableResult
  func insert(_ record: Record) throws -> RowID {
    do {
      return try update("the insert") { _, transaction throws(ModelError) in
        try transaction.insert(record)
      }
    } catch {
      switch error {
      case .store(let failure): throw failure
      case .refused(let refusal): throw refusal
      }
    }
  }

  /// The one row of `key`.
  func row(_ key: RecordKey) -> StoredRow? { content.row(for: key) }
}
