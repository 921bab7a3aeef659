/// The paths a watch by descriptor holds open, each on the file it named when it was opened:
/// the bookkeeping kqueue needs (it watches an open file, not a name), kept apart from the
/// system calls so that every platform tests it.
///
/// A watch on a name that was removed, or that now names another file (a folder unmounted
/// and mounted again, a file replaced by a rename), watches nothing that matters any more:
/// ``update(to:identify:open:close:)`` closes it and opens the name again.
struct DescriptorWatches<Handle> {
  /// Which file a path names: its device and inode.
  struct Identity: Equatable {
    /// The device holding the file.
    let device: UInt64
    /// The file's inode on that device.
    let inode: UInt64
  }

  /// Each watched path: the file it named when opened, and the handle watching it.
  private(set) var watched: [String: (identity: Identity, handle: Handle)] = [:]

  /// Watches exactly `paths`, each on the file it names now: a path no longer wanted, or
  /// naming another file or none, is closed; a path wanted and not watched is opened (one
  /// that cannot be opened is left out and tried again at the next update).
  ///
  /// - Parameters:
  ///   - paths: The paths to watch.
  ///   - identify: The file a path names now, `nil` when it names none.
  ///   - open: Opens a watch on a path: its handle and the file it opened, `nil` on failure.
  ///   - close: Closes a watch.
  mutating func update(
    to paths: [String], identify: (String) -> Identity?,
    open: (String) -> (handle: Handle, identity: Identity)?, close: (Handle) -> Void
  ) {
    let wanted = Set(paths)
    for (path, watch) in watched where !wanted.contains(path) || identify(path) != watch.identity {
      close(watch.handle)
      watched[path] = nil
    }
    for path in paths where watched[path] == nil {
      guard let opened = open(path) else { continue }
      watched[path] = (opened.identity, opened.handle)
    }
  }

  /// Closes every watch.
  mutating func closeAll(_ close: (Handle) -> Void) {
    for watch in watched.values { close(watch.handle) }
    watched.removeAll()
  }
}
