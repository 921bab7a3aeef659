import LocalStore
public import StashModel

extension DeviceFolder {
  /// Whether the folder has an inventory (`default.store`). A folder opened for reading
  /// without one reads as empty and has nothing written to it.
  public var hasInventory: Bool { local != nil }

  /// Whether opening this folder created its inventory just now.
  public var wasCreated: Bool { local?.openReport.created ?? false }

  /// This device's identity, or `nil` when there is no inventory yet.
  public var deviceID: DeviceID? { local?.deviceID }
}

/// A record as a store row holds it, with the snapshot hash written beside it.
public struct StoredRecord: Hashable, Sendable {
  /// The record, with every field (device-local ones too) exactly as stored.
  public let record: Record
  /// The snapshot hash stored with the row (it equals `record.snapshotHash` in a sound store).
  public let hash: SnapshotHash

  /// A stored record.
  public init(record: Record, hash: SnapshotHash) {
    self.record = record
    self.hash = hash
  }
}

extension DeviceFolder {
  /// The row of `model` that `text` names (an id, a unique id prefix, or an exact name).
  ///
  /// - Parameters:
  ///   - text: What the person typed.
  ///   - model: `item`, `location` or `reminder`.
  /// - Returns: The record and its stored hash.
  /// - Throws: ``StashError`` when nothing or several records match.
  public func storedRecord(_ text: String, model: String) throws(StashError) -> StoredRecord {
    guard let content else {
      throw .refused("No \(model) named '\(text)'; there is no inventory yet")
    }
    let row = try find(text, model: model, in: content)
    return StoredRecord(record: row.record, hash: row.hash)
  }
}
