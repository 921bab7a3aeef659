import JSONLines
import StashBase
import StashModel

/// What an index entry of a tombstone, checkpoint, conflict or diagnostic stands for: two
/// entries with the same identity are the same item at two times (a conflict is its id alone,
/// which derives from its key).
struct EntryIdentity: Hashable {
  var kind: LocalIndex.Kind
  var model: [UInt8]
  var id: [UInt8]
  var extra: [UInt8]

  init(_ kind: LocalIndex.Kind, model: [UInt8], id: [UInt8], extra: [UInt8]) {
    self.kind = kind
    self.model = kind == .conflict ? [] : model
    self.id = kind == .conflict ? [] : id
    self.extra = extra
  }

  init(_ entry: LocalIndex.Entry) {
    self.init(entry.kind, model: entry.model, id: entry.id, extra: entry.names.first ?? [])
  }

  init(_ kind: LocalIndex.Kind, _ key: RecordKey, extra: String = "") {
    self.init(
      kind, model: Array(key.model.utf8), id: key.id.utf8Bytes,
      extra: Array(extra.utf8))
  }
}

extension LocalStore {
  /// The entry of a tombstone, checkpoint, open conflict (`extra`: its id) or diagnostic
  /// (`extra`: its store) of `key`, whose line is at `span`; `nil` when it does not fit.
  static func keyedEntry(
    _ kind: LocalIndex.Kind, _ key: RecordKey, at span: LineSpan, extra: String? = nil
  ) -> LocalIndex.Entry? {
    let model = Array(key.model.utf8)
    let id = key.id.utf8Bytes
    let names = extra.map { [Array($0.utf8)] } ?? []
    guard model.count <= 255, id.count <= 255, names.allSatisfy({ $0.count <= 65535 }) else {
      return nil
    }
    return LocalIndex.Entry(kind: kind, row: 0, span: span, model: model, id: id, names: names)
  }

  /// Appends the entries of every tombstone, checkpoint, open conflict and diagnostic of a
  /// whole content whose lines are known; `false` when a line is not known or an entry does
  /// not fit.
  static func appendKeyedEntries(
    of content: LocalContent, to builder: inout LocalIndex.Builder
  ) -> Bool {
    let lines = content.keyedLines
    for key in content.tombstones.keys {
      guard let span = lines.tombstones[key], let entry = keyedEntry(.tombstone, key, at: span),
        builder.append(entry)
      else { return false }
    }
    for key in content.checkpoints.keys {
      guard let span = lines.checkpoints[key], let entry = keyedEntry(.checkpoint, key, at: span),
        builder.append(entry)
      else { return false }
    }
    for conflict in content.conflicts.values where conflict.state == .open {
      guard let span = lines.conflicts[conflict.id],
        let entry = keyedEntry(.conflict, conflict.key, at: span, extra: conflict.id.rawValue),
        builder.append(entry)
      else { return false }
    }
    for (key, _) in content.diagnostics {
      guard let span = lines.diagnostics[key],
        let entry = keyedEntry(.diagnostic, key.key, at: span, extra: key.store.rawValue),
        builder.append(entry)
      else { return false }
    }
    return true
  }

  /// The identities of the index's entries that `changes` replace or remove.
  static func droppedIdentities(_ changes: KeyedChanges) -> Set<EntryIdentity> {
    var dropped = Set<EntryIdentity>()
    for key in changes.tombstones.keys { dropped.insert(EntryIdentity(.tombstone, key)) }
    for key in changes.checkpoints.keys { dropped.insert(EntryIdentity(.checkpoint, key)) }
    for id in changes.conflicts.keys {
      dropped.insert(EntryIdentity(.conflict, model: [], id: [], extra: Array(id.rawValue.utf8)))
    }
    for key in changes.diagnostics.keys {
      dropped.insert(EntryIdentity(.diagnostic, key.key, extra: key.store.rawValue))
    }
    return dropped
  }

  /// Appends the entries of what `changes` put (as `content` holds it now: a conflict only
  /// while it is open); `false` when the content does not hold one of them or it does not fit.
  static func appendChangedEntries(
    _ changes: KeyedChanges, content: LocalContent, to builder: inout LocalIndex.Builder
  ) -> Bool {
    for (key, span) in changes.tombstones.sorted(by: { $0.key < $1.key }) {
      guard let span else { continue }
      guard content.tombstones[key] != nil, let entry = keyedEntry(.tombstone, key, at: span),
        builder.append(entry)
      else { return false }
    }
    for (key, span) in changes.checkpoints.sorted(by: { $0.key < $1.key }) {
      guard let span else { continue }
      guard content.checkpoints[key] != nil, let entry = keyedEntry(.checkpoint, key, at: span),
        builder.append(entry)
      else { return false }
    }
    for (id, span) in changes.conflicts.sorted(by: { $0.key < $1.key }) {
      guard let conflict = content.conflicts[id] else { return false }
      guard conflict.state == .open else { continue }
      guard let entry = keyedEntry(.conflict, conflict.key, at: span, extra: id.rawValue),
        builder.append(entry)
      else { return false }
    }
    let diagnostics = changes.diagnostics.sorted {
      ($0.key.key, $0.key.store.rawValue) < ($1.key.key, $1.key.store.rawValue)
    }
    for (key, span) in diagnostics {
      guard let span else { continue }
      guard content.diagnostics[key] != nil,
        let entry = keyedEntry(.diagnostic, key.key, at: span, extra: key.store.rawValue),
        builder.append(entry)
      else { return false }
    }
    return true
  }
}
