import JSONLines
import StashFiles
import StashModel
import Synchronization

extension LocalStore {
  /// The digest section the index beside this store carries (written by a sync with
  /// ``replaceIndexedDigest(_:)``, carried forward by every save that writes the index again);
  /// `nil` when there is no index of this store (missing, of another format, damaged, another
  /// store's) or it carries none.
  ///
  /// The section is bound to the store's id only, not to the prefix the index covers: it may
  /// describe an earlier state of the store, and its reader compares it with the store record
  /// by record, so it is only ever a shortcut.
  public func indexedDigest() -> [UInt8]? {
    Self.carriedDigest(
      at: indexPath, fileSystem: file.fileSystemForRepairs, storeID: storeID.rawValue
    ).nonEmpty
  }

  /// Writes the index again with `digest` as its digest section, everything else as it is
  /// (under the folder's lock, without fsync), once an index a save is building on another
  /// core is written; nothing when there is no index of this store, or this store was opened
  /// from its index (its saves rewrite that one). A failure changes nothing: the index is
  /// derived.
  public func replaceIndexedDigest(_ digest: [UInt8]) {
    writeDeferredIndex()
    guard indexState.withLock({ $0.loaded == nil }), let proof = try? lock.acquire() else {
      return
    }
    defer { lock.release(proof) }
    let fileSystem = file.fileSystemForRepairs
    guard let reader = IndexReader(path: indexPath, fileSystem: fileSystem),
      reader.index.storeID == storeID.rawValue, let body = reader.bodyBeforeDigest()
    else { return }
    var index = reader.index
    index.digestLength = digest.count
    try? fileSystem.writeFileAtomically(
      indexPath, index.encoded(body: body + digest), durable: false)
  }

  /// The digest section of the index at `path` when it is `storeID`'s; empty otherwise.
  static func carriedDigest(at path: String, fileSystem: any FileSystem, storeID: String)
    -> [UInt8]
  {
    guard let reader = IndexReader(path: path, fileSystem: fileSystem),
      reader.index.storeID == storeID
    else { return [] }
    return reader.digestSection() ?? []
  }
}

extension Array {
  /// `nil` for an empty array.
  fileprivate var nonEmpty: Self? { isEmpty ? nil : self }
}
