public import JSONLines
import StashBase
import StashFiles
import StashModel
import Synchronization

extension MirrorStore {
  /// When the mirror keeps an index beside its file (`cloud.store.index`).
  public struct IndexPolicy: Hashable, Sendable {
    /// The versions a mirror holds before an index is written (smaller mirrors replay fast).
    public var minimumVersions: Int
    /// How far the file may grow past the index's prefix before a whole mirror writes the
    /// index again.
    public var rewriteAfterBytes: Int64
    /// How far past the prefix an index is still used: beyond, the mirror is read in full
    /// (and writes the index again).
    public var maximumTailBytes: Int64
    /// How many times the saves of one open mirror may write the index (a whole open may
    /// always write it once more, and so may ``maintainIndex()``). None by default: a first
    /// sync exports 100,000 versions in 25 saves of 565 KB, and an index written after any of
    /// them would be stale again at the next; a sync brings it up to date once its saves are
    /// done (`SyncFolder`), and the next whole open writes it for the file as it finds it.
    public var writesPerOpenStore: Int

    /// A policy.
    public init(
      minimumVersions: Int = 2000, rewriteAfterBytes: Int64 = 1 << 20,
      maximumTailBytes: Int64 = 2 << 20, writesPerOpenStore: Int = 0
    ) {
      self.minimumVersions = minimumVersions
      self.rewriteAfterBytes = rewriteAfterBytes
      self.maximumTailBytes = maximumTailBytes
      self.writesPerOpenStore = writesPerOpenStore
    }

    /// The default.
    public static let standard = IndexPolicy()
  }

  /// How opening went with respect to the index.
  public enum IndexUse: Hashable, Sendable {
    /// No focus was given: the mirror was read in full.
    case notAsked
    /// The index was used; this many bytes after its prefix were replayed.
    case used(tailBytes: Int64)
    /// The index was not used (the reason: missing, stale, damaged, another store's, another
    /// version, a tail past the limit); the mirror was read in full.
    case ignored(String)
  }

  /// The index file's path.
  public var indexPath: String { path + MirrorIndex.suffix }

  /// Opens the mirror from its index for `focus`; `nil` and why when the index cannot be
  /// used (the caller then opens the whole file).
  static func openFromIndex(
    path: String, focus: Set<RecordKey>, schemas: SchemaRegistry, lock: FolderLock,
    access: StoreAccess, compaction: CompactionPolicy, policy: IndexPolicy,
    fileSystem: any FileSystem
  ) throws(LogError) -> FromIndex {
    let reader: MirrorIndexReader
    do {
      reader = try MirrorIndexReader(path: path + MirrorIndex.suffix, fileSystem: fileSystem)
    } catch {
      return .ignored(error == .missing ? "there is no index" : "the index is \(error)")
    }
    let index = reader.index
    guard let identity = try? fileSystem.identity(atPath: path) else {
      return .ignored("the store file cannot be read")
    }
    guard identity.device == index.prefix.device, identity.inode == index.prefix.inode else {
      return .ignored("the index describes another file (compacted or replaced since)")
    }
    let tailBytes = identity.size - index.prefix.end
    guard tailBytes >= 0 else { return .ignored("the store file is shorter than the index says") }
    guard tailBytes <= policy.maximumTailBytes else {
      return .ignored("\(tailBytes) bytes were written after the index, past the limit")
    }
    var declined = "the index's prefix no longer describes the store file"
    let opened: (store: LogStore<MirrorContent>, tail: TailReport?)?
    do {
      opened = try LogStore<MirrorContent>.open(
        path: path, resuming: index.prefix, lock: lock,
        context: MirrorContent.Context(schemas: schemas), access: access,
        compaction: compaction, fileSystem: fileSystem
      ) { header, log, tail in
        guard header.storeID.rawValue == index.storeID else {
          declined = "the index is another store's"
          return nil
        }
        let built = content(
          focus: focus, reader: reader, header: header, log: log, tail: tail, schemas: schemas)
        if built == nil { declined = "the index does not match the store file (a damaged block)" }
        return built
      }
    } catch {
      if case .busy = error { throw error }
      return .ignored("the store file after the index cannot be read")
    }
    guard let opened else { return .ignored(declined) }
    return .opened(opened.store, opened.tail, tailBytes: tailBytes)
  }

  /// The content of the prefix for `focus`: the state the index recorded, and every version
  /// of the focused records, of the records with pending versions and of the records the
  /// tail adds versions to (so that applying the tail counts exactly as a whole replay does),
  /// each line read through the index and checked; `nil` when anything is not what the index
  /// says.
  private static func content(
    focus: Set<RecordKey>, reader: MirrorIndexReader, header: LogHeader, log: Log,
    tail: [MirrorChange], schemas: SchemaRegistry
  ) -> MirrorContent? {
    var content = MirrorContent(header: header, context: MirrorContent.Context(schemas: schemas))
    content.linesAreKnown = false
    guard let state = reader.stateChanges(schemas: schemas), let pending = reader.pending()
    else { return nil }
    for change in state { content.apply(change) }
    var keys = focus
    for ref in pending { keys.insert(ref.key) }
    for change in tail {
      if case .addVersion(let version, _) = change { keys.insert(version.key) }
    }
    for key in keys {
      guard let spans = reader.spans(of: key) else { return nil }
      for span in spans {
        guard let operation = log.operation(at: span),
          case .addVersion(let version, _)? = try? content.change(from: operation),
          version.key == key
        else { return nil }
        content.apply(.addVersion(version, pending: false))
      }
    }
    content.restore(pending: pending, versionCount: reader.index.versionCount)
    content.isComplete = false
    content.focusedKeys = keys
    content.indexHeadChecksum = reader.headChecksum
    return content
  }

  /// Writes the index when this mirror holds the whole content with its lines known, holds
  /// enough versions, nothing saved may still be rolled back, and the index on disk is
  /// missing, of another file or store, or far behind. Failing to write it changes nothing:
  /// it is derived (written atomically, without fsync).
  public func maintainIndex() { _ = writeIndexIfDue() }

  /// The index's kind of derived file (its tag and format version).
  public static let indexKind = MirrorIndex.kind

  /// For a mirror opened focused through its index: what that index recorded of every
  /// version at the end of its prefix (``MirrorSummary``), read from it now (it is not read
  /// at open: a focused sync has no use for it); `nil` for a whole mirror, or when the index
  /// was replaced since or fails a check.
  public func indexedSummary() -> MirrorSummary? {
    guard let checksum = content.indexHeadChecksum,
      let reader = try? MirrorIndexReader(path: indexPath, fileSystem: file.fileSystemForRepairs),
      reader.headChecksum == checksum
    else { return nil }
    return reader.summary()
  }

  /// ``maintainIndex()`` after a save, at most ``IndexPolicy/writesPerOpenStore`` times.
  func maintainIndexAfterSave() {
    guard savedIndexWrites.withLock({ $0 < indexPolicy.writesPerOpenStore }) else { return }
    if writeIndexIfDue() { savedIndexWrites.withLock { $0 += 1 } }
  }

  /// Writes the index if it is due; whether it wrote it.
  private func writeIndexIfDue() -> Bool {
    guard !file.mayRollBack else { return false }
    let policy = indexPolicy
    let eligible =
      file.withLog { _, content in
        content.isComplete && content.linesAreKnown
          && content.versionCount >= policy.minimumVersions
      } ?? false
    guard eligible else { return false }  // no file is touched for a small or partial mirror
    let path = indexPath
    let fileSystem = file.fileSystemForRepairs
    let known = try? MirrorIndexReader(path: path, fileSystem: fileSystem).index
    let built: [UInt8]?? = file.withLog { log, content -> [UInt8]? in
      guard content.isComplete, content.linesAreKnown,
        content.versionCount >= policy.minimumVersions
      else { return nil }
      if let known, known.storeID == log.header.storeID.rawValue,
        let now = log.describePrefix(anchors: []), known.prefix.device == now.device,
        known.prefix.inode == now.inode, known.prefix.end <= now.end,
        now.end - known.prefix.end < policy.rewriteAfterBytes
      {
        return nil
      }
      return MirrorIndex.build(log: log, content: content)
    }
    guard let built, let bytes = built else { return false }
    guard let proof = try? file.lock.acquire() else { return false }
    defer { file.lock.release(proof) }
    return (try? fileSystem.writeFileAtomically(path, bytes, durable: false)) != nil
  }

  /// A focused mirror never compacts from its partial content: when the file is due (judged
  /// by the counts the index recorded, which are whole), it compacts from a whole read, as a
  /// whole mirror would have at this save.
  func compactFocusedIfDue() {
    guard !file.mayRollBack else { return }
    let due =
      file.withLog { log, content in
        !content.isComplete
          && file.compaction.isWorthIt(
            lines: log.committedLines, liveChanges: content.liveChangeCount)
      } ?? false
    if due { try? file.compact() }
  }
}

/// What opening from the index gave.
enum FromIndex {
  /// The focused store, what followed its last commit, and how many bytes the tail held.
  case opened(LogStore<MirrorContent>, TailReport?, tailBytes: Int64)
  /// Why the index was not used.
  case ignored(String)
}
