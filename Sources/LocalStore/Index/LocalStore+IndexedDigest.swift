import JSONLines
import StashFiles
package import StashModel
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

  /// Writes the index again with `digest` as its digest section (`nil`: the one it holds,
  /// which the caller found current) and a status section saying that both describe the store
  /// at `status.position`, where `status.pending` were the records not sent
  /// (``unsentKeys(of:)``); everything else as it is (under the folder's lock, without
  /// fsync). An index a save is building on another core is sealed with these sections (a
  /// `nil` digest: the one it carries) and written once; else the index on disk is written
  /// again. The status section is left out when the position is not in the index's file or
  /// is before its prefix (and, rewriting the index on disk, with a `nil` digest nothing is
  /// written then). Nothing is written when there is no index of this store, or this store
  /// was opened from its index (its saves rewrite that one). A failure changes nothing: the
  /// index is derived.
  package func replaceIndexedDigest(
    _ digest: [UInt8]?, status: (position: StorePosition, pending: [RecordKey])? = nil
  ) {
    if let (built, carried, known) = waitForDeferredIndex() {
      // The index a save built on another core is sealed with these sections and written
      // once (it was written, read back and written again: at 100,000 items two 13 MB
      // writes, and the read's and the new file's buffers beside both stores).
      if let built {
        let status = Self.statusSection(status, describing: built.index.prefix)
        writeIndex(built.sealed(status: status, digest: digest ?? carried), known: known)
        return
      }
    }
    guard indexState.withLock({ $0.loaded == nil }), let proof = try? lock.acquire() else {
      return
    }
    defer { lock.release(proof) }
    let fileSystem = file.fileSystemForRepairs
    guard let reader = IndexReader(path: indexPath, fileSystem: fileSystem),
      reader.index.storeID == storeID.rawValue, let body = reader.bodyBeforeStatus()
    else { return }
    // Either section may fail its check (a damaged block): it is then written again.
    let current = reader.digestSection()
    let currentStatus = reader.statusSection()
    let prefix = reader.index.prefix
    let statusBytes = Self.statusSection(status, describing: prefix)
    if digest == nil && statusBytes.isEmpty { return }
    guard let section = digest ?? current, section != current || statusBytes != currentStatus
    else { return }
    var index = reader.index
    index.statusLength = statusBytes.count
    index.digestLength = section.count
    // One buffer, with room for what precedes the body: it becomes the file's bytes.
    var bytes = body
    let length = body.count + statusBytes.count + section.count
    bytes.reserveCapacity(
      length
        + LocalIndex.kind.prefixLength(
          bodyLength: length, source: .store(id: index.storeID, prefix: prefix),
          head: LocalIndex.headLength))
    bytes += statusBytes
    bytes += section
    try? fileSystem.writeFileAtomically(
      indexPath, index.encoded(body: consume bytes), durable: false)
  }

  /// The status section saying that the index at `prefix` and its digest section describe
  /// the store at `status.position`; empty when there is no status or the position is not in
  /// the index's file or is before its prefix.
  private static func statusSection(
    _ status: (position: StorePosition, pending: [RecordKey])?, describing prefix: LogPrefix
  ) -> [UInt8] {
    guard let status, status.position.device == prefix.device,
      status.position.inode == prefix.inode, status.position.end >= prefix.end
    else { return [] }
    return StatusSection(end: status.position.end, pending: status.pending).encoded() ?? []
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
