import Foundation
public import JSONLines
import StashFiles
public import StashModel
import Synchronization

extension LocalStore {
  /// The records a command that touches one record needs (`stash consume ITEM`): with a
  /// focus, the store opens from its index and reads only those records' lines, the settings
  /// and what the file holds after the index's prefix.
  ///
  /// Such a store's ``content`` is not the whole inventory (``LocalContent/isComplete`` is
  /// `false`): it holds every row a lookup of the focus could find (by id, id prefix of 4 or
  /// more characters, or a value of a lookup field its schema declares, such as an item's
  /// name, ignoring case: ``Record/lookupNames``), the rows those rows refer to, and
  /// every row changed after the prefix. Listing, syncing and checking need the whole store:
  /// open those without a focus.
  ///
  /// A focus on record keys (``keys``, for a pass over the keys changed since a sync) loads
  /// everything the store holds about each key: every row with that model and id, its
  /// tombstone, its checkpoint (and the binding), its open conflicts and its diagnostics. For
  /// those keys, ``LocalContent/rows(for:)``, ``LocalContent/tombstones``,
  /// ``LocalContent/checkpoints``, ``LocalContent/checkpointMirror``, the open conflicts and
  /// ``LocalContent/diagnostics`` are what a whole open gives (resolved and superseded
  /// conflicts are not loaded, unless the file changed them after the index's prefix).
  public struct Focus: Hashable, Sendable {
    /// One lookup, as a person typed it.
    public struct Lookup: Hashable, Sendable {
      /// The model (`item`, `location`, `reminder`).
      public let model: String
      /// An id, an id prefix or a name.
      public let text: String

      /// A lookup.
      public init(model: String, text: String) {
        self.model = model
        self.text = text
      }
    }

    /// The lookups.
    public var lookups: [Lookup]
    /// Record keys whose whole state is loaded (see ``Focus``).
    public var keys: Set<RecordKey>

    /// A focus on the records these lookups name (none: only the settings, as for an add).
    public init(_ lookups: [Lookup]) {
      self.lookups = lookups
      self.keys = []
    }

    /// A focus on everything the store holds about `keys` (rows, tombstones, checkpoints,
    /// open conflicts, diagnostics), and on the records `lookups` name.
    public init(keys: Set<RecordKey>, lookups: [Lookup] = []) {
      self.lookups = lookups
      self.keys = keys
    }
  }

  /// When the store keeps an index beside its file (``LocalIndex``).
  public struct IndexPolicy: Hashable, Sendable {
    /// The live rows a store holds before a save writes an index (smaller stores replay fast).
    public var minimumRows: Int
    /// How far the file may grow past the index's prefix before a save that has read the
    /// whole store writes the index again.
    public var rewriteAfterBytes: Int64
    /// How far past the prefix an index is still used: beyond, the store is read in full (and
    /// the next save writes the index again).
    public var maximumTailBytes: Int64

    /// A policy.
    public init(
      minimumRows: Int = 2000, rewriteAfterBytes: Int64 = 256 << 10,
      maximumTailBytes: Int64 = 2 << 20
    ) {
      self.minimumRows = minimumRows
      self.rewriteAfterBytes = rewriteAfterBytes
      self.maximumTailBytes = maximumTailBytes
    }

    /// The default.
    public static let standard = IndexPolicy()
  }

  /// Whether opening used the index.
  public enum IndexUse: Hashable, Sendable {
    /// No focus was given: the store was read in full.
    case notAsked
    /// The index was used; this many bytes after its prefix were replayed.
    case used(tailBytes: Int64)
    /// The index was not used (missing, stale, damaged, another store's, another version);
    /// the store was read in full.
    case ignored(String)
  }

  /// The index file's path.
  public var indexPath: String { path + LocalIndex.suffix }
  /// The index's kind of derived file (its tag and format version).
  public static let indexKind = LocalIndex.kind

  /// Opens the store from its index for `focus`, or returns `nil` (with why) when it cannot.
  static func openFromIndex(
    path: String, focus: Focus, schemas: SchemaRegistry, lock: FolderLock,
    access: StoreAccess, compaction: CompactionPolicy, policy: IndexPolicy,
    fileSystem: any FileSystem
  ) throws(LogError) -> (file: LogStore<LocalContent>, tail: TailReport?, index: LocalIndex)? {
    guard let reader = IndexReader(path: path + LocalIndex.suffix, fileSystem: fileSystem),
      reader.index.declaration == LocalIndex.declaration(of: schemas)
    else {
      return nil
    }
    let index = reader.index
    let size = (try? fileSystem.identity(atPath: path))??.size ?? 0
    guard size - index.prefix.end <= policy.maximumTailBytes else { return nil }
    do {
      let opened = try LogStore<LocalContent>.open(
        path: path, resuming: index.prefix, lock: lock, context: schemas, access: access,
        compaction: compaction, fileSystem: fileSystem
      ) { header, log, tail in
        guard header.storeID.rawValue == index.storeID else { return nil }
        return content(
          for: focus, from: reader, header: header, log: log, tail: tail, schemas: schemas)
      }
      return opened.map { ($0.store, $0.tail, index) }
    } catch {
      if case .busy = error { throw error }
      return nil  // a full open says what is wrong, naming the line
    }
  }

  /// Reads and checks the index file's head; `nil` when it is missing or not an index of
  /// this format.
  static func readIndex(at path: String, fileSystem: any FileSystem) -> LocalIndex? {
    IndexReader(path: path, fileSystem: fileSystem)?.index
  }

  /// The content for `focus`: the settings, the binding, the rows the lookups can find,
  /// everything the index holds of its keys, and the rows those refer to, each line read
  /// through the index and checked; `nil` when a line is not what the index says.
  private static func content(
    for focus: Focus, from reader: IndexReader, header: LogHeader, log: Log,
    tail: [LocalChange], schemas: SchemaRegistry
  ) -> LocalContent? {
    let index = reader.index
    var content = LocalContent(header: header, context: schemas)
    func load(_ span: LineSpan, expecting check: (LocalChange) -> Bool) -> Bool {
      guard let change = log.change(at: span, in: content), check(change) else { return false }
      content.apply(change, at: span)
      return true
    }
    guard
      load(
        index.settingsLine,
        expecting: {
          if case .putSettings = $0 { true } else { false }
        })
    else { return nil }
    if let binding = index.bindingLine {
      guard
        load(
          binding,
          expecting: {
            if case .bindCheckpoints = $0 { true } else { false }
          })
      else { return nil }
    }
    var loaded = Set<Int64>()
    /// Loads the rows of `entries` (found by a lookup: `nil` when the index failed a check).
    func loadRows(_ entries: [LocalIndex.Entry]?) -> Bool {
      guard let entries else { return false }
      for entry in entries.sorted(by: { $0.row < $1.row }) where loaded.insert(entry.row).inserted {
        let fits = load(entry.span) { change in
          guard case .putRow(let row, let record, _) = change else { return false }
          return row.rawValue == entry.row && Array(record.model.utf8) == entry.model
            && record.id.utf8Bytes == entry.id
        }
        guard fits else { return false }
      }
      return true
    }
    /// The entries of `model` with exactly this id.
    func withID(_ model: [UInt8], _ id: [UInt8]) -> [LocalIndex.Entry]? {
      reader.entries(model: model, idPrefix: id)?.filter { $0.id == id }
    }
    for lookup in focus.lookups {
      let model = Array(lookup.model.utf8)
      let lowered = lookup.text.lowercased()
      if let exact = RecordID(normalizing: lookup.text).map({ Array($0.rawValue.utf8) }) {
        guard loadRows(withID(model, exact)) else { return nil }
      }
      if lowered.count >= 4 {
        guard loadRows(reader.entries(model: model, idPrefix: Array(lowered.utf8))) else {
          return nil
        }
      }
      guard loadRows(reader.entries(model: model, name: LocalIndex.searchForm(lookup.text)))
      else { return nil }
    }
    for key in focus.keys.sorted() {
      let model = Array(key.model.utf8)
      let id = key.id.utf8Bytes
      guard loadRows(withID(model, id)), let keyed = reader.keyedEntries(model: model, id: id)
      else { return nil }
      for entry in keyed.sorted(by: { $0.span.offset < $1.span.offset }) {
        guard load(entry.span, expecting: { Self.change($0, isEntry: entry, of: key) }) else {
          return nil
        }
      }
    }
    // One hop of references (an item's location), so that a command can name them: from
    // the rows loaded, and from the rows the tail writes (it is applied after this).
    var targets = Set<RecordKey>()
    var records = content.rows.values.map(\.record)
    for change in tail {
      if case .putRow(_, let record, _) = change { records.append(record) }
    }
    for record in records {
      for (field, value) in zip(record.schema.fields, record.values) {
        if case .reference(let id) = value, let model = field.type.referencedModel {
          targets.insert(RecordKey(model: model, id: id))
        }
      }
    }
    for target in targets {
      guard loadRows(withID(Array(target.model.utf8), target.id.utf8Bytes)) else {
        return nil
      }
    }
    if index.nextRow > content.nextRow.rawValue { content.nextRow = RowID(index.nextRow) }
    content.isComplete = false
    return content
  }

  /// Whether `change`, read from the line of a tombstone, checkpoint, conflict or diagnostic
  /// entry of `key`, is what the entry says (a conflict: that open conflict).
  private static func change(
    _ change: LocalChange, isEntry entry: LocalIndex.Entry, of key: RecordKey
  ) -> Bool {
    let extra = entry.names.first.map { String(decoding: $0, as: UTF8.self) }
    switch (entry.kind, change) {
    case (.tombstone, .putTombstone(let tombstone)):
      return tombstone.key == key && entry.names.isEmpty
    case (.checkpoint, .putCheckpoint(let found, _)):
      return found == key && entry.names.isEmpty
    case (.conflict, .putConflict(let conflict)):
      return conflict.key == key && conflict.state == .open && conflict.id.rawValue == extra
        && entry.names.count == 1
    case (.diagnostic, .putDiagnostic(let diagnostic)):
      return diagnostic.key == key && diagnostic.store.rawValue == extra
        && entry.names.count == 1
    default:
      return false
    }
  }
}
