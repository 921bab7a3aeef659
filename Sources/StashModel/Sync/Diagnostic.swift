/// Something odd the reconciler found and left alone, for a person to look at.
///
/// Today there is one kind: two or more rows with one record id in a store (table row 0).
/// The reconciler never chooses between them; it records this and touches nothing for the key.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
  /// Which store holds the duplicates.
  public enum Store: String, Hashable, Sendable {
    /// The local store.
    case local
    /// The mirror store.
    case mirror
  }

  /// The duplicated key.
  public let key: RecordKey
  /// Which store.
  public let store: Store
  /// How many rows carry the id.
  public let rows: Int
  /// When it was first noticed.
  public let noticedAt: Timestamp

  /// Describes a duplicate.
  public init(key: RecordKey, store: Store, rows: Int, noticedAt: Timestamp) {
    self.key = key
    self.store = store
    self.rows = rows
    self.noticedAt = noticedAt
  }

  public var description: String {
    "\(rows) rows in the \(store.rawValue) store share the id of \(key)"
  }
}
