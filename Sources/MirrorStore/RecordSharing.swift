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
  /// The lookup, boxed: a closure kept in the mutex itself was re-wrapped in a conversion
  /// thunk each time `withLock` handed it out and wrote it back, so the n-th lookup ran
  /// through 2n thunks (quadratic, and at 100,000 records deep enough to overflow a stack).
  private final class Lookup: Sendable {
    let find: @Sendable (RecordKey) -> Record?
    init(_ find: @escaping @Sendable (RecordKey) -> Record?) { self.find = find }
  }

  private let lookup: Mutex<Lookup?>

  /// Offers the records `lookup` finds by key (`nil`: none for that key).
  public init(_ lookup: @escaping @Sendable (RecordKey) -> Record?) {
    self.lookup = Mutex(Lookup(lookup))
  }

  /// Stops offering records, and lets go of what the lookup captured.
  public func end() {
    lookup.withLock { $0 = nil }
  }

  /// The offered record when it equals `record`, else `record`.
  func shared(_ record: Record) -> Record {
    guard let box = lookup.withLock({ $0 }), let offered = box.find(record.key), offered == record
    else { return record }
    return offered
  }
}
