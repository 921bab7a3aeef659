public import StashModel
import Synchronization

/// Records another store of the device holds in memory, offered to a mirror while it reads
/// its file: a version whose record equals the one offered for its key keeps the offered
/// record (sharing its storage) instead of a decoded copy of its own.
///
/// Both stores of a synced folder hold mostly the same records, so every command that opens
/// both whole (a sync, `sync verify`) held each record twice. Offer the records only while
/// the mirror opens, and call ``end()`` then: what the lookup captures stays alive until it
/// ends, and another store's content held past that store's next save would make the save
/// copy it whole.
public final class RecordSharing: Sendable {
  private let lookup: Mutex<(@Sendable (RecordKey) -> Record?)?>

  /// Offers the records `lookup` finds by key (`nil`: none for that key).
  public init(_ lookup: @escaping @Sendable (RecordKey) -> Record?) {
    self.lookup = Mutex(lookup)
  }

  /// Stops offering records, and lets go of what the lookup captured.
  public func end() {
    lookup.withLock { $0 = nil }
  }

  /// The offered record when it equals `record`, else `record`.
  func shared(_ record: Record) -> Record {
    guard let find = lookup.withLock({ $0 }), let offered = find(record.key), offered == record
    else { return record }
    return offered
  }
}
