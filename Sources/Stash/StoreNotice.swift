import JSONLines
import LocalStore
import MirrorStore

/// Something a person should know about a store file, told as it happens: not an error, the
/// command goes on (the CLI prints it on standard error).
public struct StoreNotice: Hashable, Sendable, CustomStringConvertible {
  /// What happened.
  public enum Kind: String, Hashable, Sendable {
    /// The last transaction is damaged and is not shown (it may be a saved change).
    case damagedTail
    /// A damaged last transaction was moved to a side file by a save.
    case setAside
    /// Rows that cannot be trusted were set aside when the store was read.
    case damagedRows
    /// The folder was copied or restored and took a device identity of its own.
    case newIncarnation
  }

  /// What happened.
  public let kind: Kind
  /// What happened and what to do, for a person.
  public let message: String
  /// What to do, for a tool to word as its own command (replacing the message's last
  /// clause), when there is something to do.
  public var hint: Hint? {
    switch kind {
    case .damagedTail: .repair
    case .damagedRows: .repair
    case .setAside, .newIncarnation: nil
    }
  }

  /// A notice.
  public init(_ kind: Kind, _ message: String) {
    self.kind = kind
    self.message = message
  }

  public var description: String { message }

  /// Tells `tell` what opening `store` found, and every damaged tail it sets aside later.
  ///
  /// A torn tail (an unfinished write, never reported saved) is dropped without a word, as a
  /// database recovers its journal; a damaged one is always told.
  static func watch<Content: LogContent>(
    _ store: LogStore<Content>, openedWith tail: TailReport?,
    tell: @escaping @Sendable (StoreNotice) -> Void
  ) {
    let isMirror = Content.format == MirrorContent.format
    if let tail, tail.kind == .damaged {
      tell(StoreNotice(tail.keptAt == nil ? .damagedTail : .setAside, tail.message(isMirror)))
    }
    if let local = store.content as? LocalContent, !local.damagedRows.isEmpty {
      tell(damagedRows(local.damagedRows.values.sorted { $0.line < $1.line }, in: store.path))
    }
    store.observeTails { tail in
      if tail.kind == .damaged { tell(StoreNotice(.setAside, tail.message(isMirror))) }
    }
  }

  /// The notice of rows set aside when `path` was read.
  static func damagedRows(_ rows: [DamagedRow], in path: String) -> StoreNotice {
    let first = rows[0]
    let count = rows.count == 1 ? "1 damaged row" : "\(rows.count) damaged rows"
    return StoreNotice(
      .damagedRows,
      "'\(path)' has \(count), set aside and not shown (line \(first.line): \(first.reason)); "
        + "examining the folder lists them; repair the folder to move them to a side file")
  }
}

extension TailReport {
  /// What a person should know about this tail: ``description``, or for the mirror, that it
  /// holds copies only and how sync comes back.
  ///
  /// Everything a mirror holds is a copy of the shared folder's segments or of the inventory,
  /// and its last transaction is the last one a sync wrote: when it is set aside, the next sync
  /// reads again the segments it had read and copies again what the inventory holds.
  func message(_ isMirror: Bool) -> String {
    guard isMirror, kind == .damaged else { return description }
    let again =
      "reads again from the shared folder what it held and copies the inventory's changes again"
    guard let keptAt else {
      return "The last transaction of the mirror '\(path)' is damaged (\(reason)); it is not "
        + "used and the inventory is not affected; the mirror holds copies only: the next sync "
        + "sets it aside and \(again); repair the folder to set it aside now"
    }
    return "Set aside the damaged last transaction of the mirror '\(path)' (\(reason)) in "
      + "'\(keptAt)'; the mirror holds copies only, so sync comes back by itself: the next "
      + "sync \(again)"
  }
}
