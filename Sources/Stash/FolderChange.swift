public import StashModel

/// One change of a device folder, as ``SyncFolder/changes(polling:)`` tells it.
public enum FolderChange: Hashable, Sendable {
  /// Records saved by this process through this folder: an edit, a delete.
  case saved(Set<RecordKey>)
  /// Records the engine wrote here in this process: what a sync applied (what arrived from
  /// other devices), or what a conflict's resolution kept.
  case applied(Set<RecordKey>)
  /// Records saved by another process (a `stash` command, a sync it ran) or another
  /// ``SyncFolder`` on the same folder, found when the store was read again.
  case savedElsewhere(Set<RecordKey>)
  /// Conflicts that are open now and were not before.
  case conflictsOpened([SyncConflict])
  /// Conflicts that were open and are settled now (resolved, or superseded).
  case conflictsSettled([SyncConflict])
  /// A sync of this folder by this process ended with this report.
  case synced(SyncRunReport)
  /// The local store could not be read again (damaged, unreadable); observation goes on and
  /// tells what changed once it can.
  case unreadable(StashError)

  /// The records this change names (none for a sync's end or a failure).
  public var keys: Set<RecordKey> {
    switch self {
    case .saved(let keys), .applied(let keys), .savedElsewhere(let keys): keys
    case .conflictsOpened(let conflicts), .conflictsSettled(let conflicts):
      Set(conflicts.map(\.key))
    case .synced, .unreadable: []
    }
  }
}
