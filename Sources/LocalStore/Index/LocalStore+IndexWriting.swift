import JSONLines
import StashBase
import StashFiles
import StashModel
import Synchronization

extension LocalStore {
  /// Writes the index again after a save (or a sync, which may have saved nothing), when the
  /// store holds the whole content and the index is missing, ignored or far behind (see
  /// ``IndexPolicy``). Failing to write it changes nothing: it is derived.
  public func maintainIndex() {
    writeDeferredIndex()  // one built on another core is written first, in order
    compactFocusedStoreIfDue()
    let policy = indexPolicy
    var known = indexState.withLock { $0 }
    var historyLines: Int?
    let built: IndexBuild?? = file.withLog { log, content -> IndexBuild? in
      guard content.linesAreKnown, content.damagedRows.isEmpty,
        let settingsLine = content.settingsLine
      else { return nil }
      if !content.isComplete {
        // A focused store: the index it was opened from, with the rows changed since.
        guard let loaded = known.loaded, let end = known.end,
          log.committedEnd - end >= policy.rewriteAfterBytes
        else { return nil }
        return .bytes(
          LocalStore.updatedIndex(
            loaded, at: indexPath, fileSystem: file.fileSystemForRepairs, log: log,
            content: content, settingsLine: settingsLine))
      }
      guard content.rows.count >= policy.minimumRows else { return nil }
      if !known.checked {
        // Opened without a focus: whether the index on disk still describes this file.
        known.checked = true
        if let index = LocalStore.readIndex(at: indexPath, fileSystem: file.fileSystemForRepairs),
          let now = log.describePrefix(anchors: []), index.prefix.device == now.device,
          index.prefix.inode == now.inode, index.prefix.end <= now.end,
          index.storeID == log.header.storeID.rawValue,
          index.declaration == LocalIndex.declaration(of: content.schemas)
        {
          known.end = index.prefix.end
          known.inode = index.prefix.inode
          // Another process's index: its section is carried unsearched if no line is past it.
          if content.listsNoHistoryLine(from: index.prefix.end) {
            known.historyLines = content.historyLines
          }
        }
      }
      if let end = known.end, known.inode == log.describePrefix(anchors: [])?.inode,
        log.committedEnd - end < policy.rewriteAfterBytes
      {
        return nil
      }
      // The digest section a sync wrote is carried forward from the index on disk, if it is
      // this store's (read here, under the lock, before the build moves to another core).
      let digest = LocalStore.carriedDigest(
        at: indexPath, fileSystem: file.fileSystemForRepairs,
        storeID: log.header.storeID.rawValue)
      historyLines = content.historyLines
      return LocalStore.wholeIndex(
        log: log, content: content, settingsLine: settingsLine, digest: digest,
        history: LocalStore.wholeHistory(
          log: log, at: indexPath, fileSystem: file.fileSystemForRepairs,
          known: HistoryScan.KnownPuts(content: content, path: log.path),
          unchangedSince: known.historyLines == content.historyLines ? known.end : nil)
      ).map(IndexBuild.whole)
    }
    indexState.withLock { $0 = known }
    // What the index being built covers of the history lines, noted with it once written.
    known.historyLines = historyLines
    guard let built, let build = built else { return }
    switch build {
    case .bytes(let bytes):
      if let bytes { writeIndex(bytes, known: known) }
    case .whole(let input):
      guard indexDeferral.withLock({ $0.depth > 0 }) else {
        if let bytes = input.encoded() { writeIndex(bytes, known: known) }
        return
      }
      let job = Background { input.unsealed() }
      indexDeferral.withLock { $0.pending = (job, input.digest, known) }
    }
  }

  /// Runs `body` with the index a save writes built on another core, and written when it is
  /// next needed: by the next save, by ``writeDeferredIndex()``, or when `body` returns. A
  /// sync runs its export and digest meanwhile (they never write this store, and read its
  /// content without changing it, so the build's copy of the content is never copied).
  public func deferringIndexWrites<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
    indexDeferral.withLock { $0.depth += 1 }
    defer {
      indexDeferral.withLock { $0.depth -= 1 }
      writeDeferredIndex()
    }
    return try body()
  }

  /// Writes the index a deferred build made, once it is done (nothing when there is none):
  /// a sync calls it before it releases the folder's lock, so that the write waits for no
  /// other process.
  public func writeDeferredIndex() {
    guard let (unsealed, digest, known) = waitForDeferredIndex() else { return }
    if let unsealed { writeIndex(unsealed.sealed(status: [], digest: digest), known: known) }
  }

  /// Whether an index a save built on another core waits to be written.
  package var hasDeferredIndex: Bool { indexDeferral.withLock { $0.pending != nil } }

  /// The index a deferred build made (`nil` inside when it could not be encoded), once done,
  /// with the digest section it carries forward; `nil` when there is none.
  func waitForDeferredIndex() -> (LocalIndex.Unsealed?, [UInt8], IndexState)? {
    guard
      let (job, digest, known) = indexDeferral.withLock({ state in
        defer { state.pending = nil }
        return state.pending
      })
    else { return nil }
    return (job.wait(), digest, known)
  }

  /// Writes `bytes` as the index, under the folder's lock, and notes what it covers.
  func writeIndex(_ bytes: [UInt8], known: IndexState) {
    guard let proof = try? lock.acquire() else { return }
    defer { lock.release(proof) }
    if (try? file.fileSystemForRepairs.writeFileAtomically(indexPath, bytes, durable: false))
      != nil, let index = LocalIndex(decoding: bytes)
    {
      // A focused store goes on from the index it wrote (its changed rows are written again
      // from its content each time, so the ones already in this index do no harm).
      indexState.withLock {
        $0 = IndexState(
          end: index.prefix.end, inode: index.prefix.inode,
          loaded: known.loaded == nil ? nil : index, checked: true,
          historyLines: known.historyLines)
      }
    }
  }

  /// A store opened from the index never compacts from its partial content: when the file is
  /// due (judged by the index's count of live changes), it reads the whole file and compacts,
  /// as a store read in full would have at this save.
  private func compactFocusedStoreIfDue() {
    guard let loaded = indexState.withLock({ $0.loaded }) else { return }
    let due =
      file.withLog { log, content in
        !content.isComplete
          && file.compaction.isWorthIt(
            lines: log.committedLines, liveChanges: Int(clamping: loaded.liveChanges))
      } ?? false
    guard due, (try? file.compact()) != nil else { return }
    indexState.withLock { $0 = IndexState(end: nil, inode: nil, loaded: nil, checked: true) }
  }

  /// The index at `path` (which must still be `index`, the one a focused content was read
  /// from) with the rows, tombstones, checkpoints, conflicts and diagnostics that content
  /// changed since: the same entries for everything else, each changed one's new line (or
  /// none: removed, or a conflict no longer open; every checkpoint of `index` is dropped when
  /// the checkpoints were bound again). `nil` when the file is no longer that index, or fails
  /// a check.
  static func updatedIndex(
    _ index: LocalIndex, at path: String, fileSystem: any FileSystem, log: Log,
    content: LocalContent, settingsLine: LineSpan
  ) -> [UInt8]? {
    let declaration = LocalIndex.declaration(of: content.schemas)
    guard let reader = IndexReader(path: path, fileSystem: fileSystem),
      reader.index.headChecksum == index.headChecksum, reader.index.prefix == index.prefix,
      reader.index.declaration == declaration, let digest = reader.digestSection()
    else { return nil }
    var builder = LocalIndex.Builder(capacity: index.entryCount + 64)
    // The lines after the old prefix about each record, for the history section (none when
    // the old index has none: the next whole read writes one).
    var scan =
      reader.index.hasHistory
      ? HistoryScan.scan(log, after: (reader.index.prefix.end, reader.index.prefix.lines)) : nil
    var anchors = [LineSpan]()
    let changed = content.changedSinceIndex
    let keyed = content.keyedChangesSinceIndex
    let dropped = droppedIdentities(keyed)
    let step = max(1, index.entryCount / 14)
    var fits = true
    // Whose the rows the content changed or never held were at the prefix (the status
    // section carried forward needs every record the lines after it touched).
    var priorKeys = [RowID: RecordKey]()
    let unseen = content.unseenRows
    let whole = reader.forEachEntry { entry in
      if entry.kind == .row {
        let row = RowID(entry.row)
        if changed[row] != nil || unseen.contains(row),
          let text = String(validating: entry.id, as: UTF8.self), let id = RecordID(text)
        {
          priorKeys[row] = RecordKey(model: String(decoding: entry.model, as: UTF8.self), id: id)
        }
        scan?.resolve(row: entry.row, to: LocalIndex.HistoryKey(model: entry.model, id: entry.id))
        guard changed[row] == nil else { return }
        if builder.count % step == 0 { anchors.append(entry.span) }
      } else if !keyed.isEmpty {
        if entry.kind == .checkpoint && keyed.checkpointsRebound { return }
        if dropped.contains(EntryIdentity(entry)) { return }
      }
      fits = fits && builder.append(entry)
    }
    guard whole, fits else { return nil }
    for (row, span) in changed.sorted(by: { $0.key < $1.key }) {
      guard let span else { continue }
      guard let stored = content.rows[row], let entry = entry(for: stored, at: span),
        builder.append(entry)
      else { return nil }
    }
    guard appendChangedEntries(keyed, content: content, to: &builder) else { return nil }
    guard let prefix = log.describePrefix(anchors: anchors) else { return nil }
    return builder.encoded(
      storeID: log.header.storeID.rawValue, prefix: prefix, nextRow: content.nextRow.rawValue,
      liveChanges: index.liveChanges, settingsLine: settingsLine,
      bindingLine: content.bindingLine ?? index.bindingLine,
      history: scan?.section(carrying: reader),
      status: carriedStatus(reader, content: content, priorKeys: priorKeys, end: prefix.end),
      digest: digest,
      declaration: declaration)
  }

  /// The status section of the index `reader` reads, carried forward to a new prefix ending
  /// at `end` by a save of the focused `content` read from it: its end moved to `end`, and
  /// the records the lines after the old prefix touched added to its stale records (so that
  /// status reads those from the store, and the section and digest section for the rest).
  /// `priorKeys` are the records the old index held in the rows the content changed or never
  /// held (``LocalContent/unseenRows``). Empty (dropped) when there is none, it is older than
  /// the old prefix, the lines bound the checkpoints again or touched a record that cannot be
  /// known, or too many records would be stale (``StatusSection/maximumStale``): a wrong
  /// status is worse than a slow one.
  static func carriedStatus(
    _ reader: IndexReader, content: LocalContent, priorKeys: [RowID: RecordKey], end: Int64
  ) -> [UInt8] {
    guard let bytes = reader.statusSection(), !bytes.isEmpty,
      var section = StatusSection(decoding: bytes), section.end >= reader.index.prefix.end,
      end >= section.end,
      let touched = touchedKeys(in: content, requiringAll: true, priorKeys: priorKeys)
    else { return [] }
    let stale = touched.union(section.stale)
    guard stale.count <= StatusSection.maximumStale else { return [] }
    section.stale = stale.sorted()
    section.end = end
    return section.encoded() ?? []
  }

  /// The entry of a row whose line is at `span`, with the names its schema's lookup fields
  /// hold (``Record/lookupNames``) and its indexed fields' keys (``LocalIndex/fields(of:)``);
  /// `nil` when it does not fit the format.
  static func entry(for stored: StoredRow, at span: LineSpan) -> LocalIndex.Entry? {
    let record = stored.record
    let names = record.lookupNames.map(LocalIndex.searchForm)
    let model = Array(record.model.utf8)
    let id = record.id.utf8Bytes
    guard model.count <= 255, id.count <= 255, names.allSatisfy({ $0.count <= 65535 }),
      let fields = LocalIndex.fields(of: record)
    else {
      return nil
    }
    return LocalIndex.Entry(
      row: stored.row.rawValue, span: span, model: model, id: id, names: names, fields: fields)
  }

  /// What the index of a whole content whose lines are known is encoded from (the file's
  /// prefix read now, under the store's lock, and the digest section carried forward); `nil`
  /// when a row's line is unknown or the file does not end with a commit.
  static func wholeIndex(
    log: Log, content: LocalContent, settingsLine: LineSpan, digest: [UInt8],
    history: LocalIndex.HistorySection?
  ) -> WholeIndexInput? {
    // The same rows, in the same order, as ``WholeIndexInput/encoded()`` adds them.
    var anchors = [LineSpan]()
    let step = max(1, content.rows.count / 14)
    for (number, stored) in content.rows.values.enumerated() where number % step == 0 {
      guard let span = content.rowLines[stored.row] else { return nil }
      anchors.append(span)
    }
    guard let prefix = log.describePrefix(anchors: anchors) else { return nil }
    return WholeIndexInput(
      content: content, prefix: prefix, storeID: log.header.storeID.rawValue,
      settingsLine: settingsLine, digest: digest, history: history)
  }

  /// The history section of an index of the whole file `log`: the one of the index at `path`
  /// carried forward with the lines after its prefix, when that index still describes the
  /// file (same store, same file, its probes unchanged) and has one (as it is, without a
  /// search of the lines after its prefix, when it is the index this store wrote at
  /// `unchangedSince` and no line the section lists was applied since); else from a scan of the
  /// whole file (the first index of a file), or without one when `known` holds every line it
  /// would find. Neither scan decodes again the live rows' lines `known` holds. `nil` when
  /// the file cannot be read.
  static func wholeHistory(
    log: Log, at path: String, fileSystem: any FileSystem, known: HistoryScan.KnownPuts,
    unchangedSince: Int64? = nil
  ) -> LocalIndex.HistorySection? {
    if let reader = IndexReader(path: path, fileSystem: fileSystem),
      reader.index.hasHistory, reader.index.storeID == log.header.storeID.rawValue,
      log.isDescribed(by: reader.index.prefix),
      let end = unchangedSince, reader.index.prefix.end == end
    {
      // The index this store wrote, and no line the section lists applied since: its
      // section is carried as it is, without reading the lines after its prefix.
      if let section = HistoryScan().section(carrying: reader) { return section }
    }
    if let reader = IndexReader(path: path, fileSystem: fileSystem),
      reader.index.hasHistory, reader.index.storeID == log.header.storeID.rawValue,
      log.isDescribed(by: reader.index.prefix),
      var scan = HistoryScan.scan(
        log, after: (reader.index.prefix.end, reader.index.prefix.lines), known: known)
    {
      if !scan.unresolved.isEmpty {
        let resolved = reader.forEachEntry { entry in
          guard entry.kind == .row else { return }
          scan.resolve(row: entry.row, to: LocalIndex.HistoryKey(model: entry.model, id: entry.id))
        }
        guard resolved else {
          return HistoryScan.scan(log, after: nil, known: known)?.section(carrying: nil)
        }
      }
      if let section = scan.section(carrying: reader) { return section }
    }
    return (known.wholeScan ?? HistoryScan.scan(log, after: nil, known: known))?
      .section(carrying: nil)
  }
}

/// What an index is written from: its bytes (a focused store's, brought up to date from
/// the index it read), or a whole store's content.
enum IndexBuild {
  case bytes([UInt8]?)
  case whole(WholeIndexInput)
}

/// A whole store's index before it is encoded: the content and what was read from the file
/// (its prefix, with the probes), so that encoding needs no file and can run on another core.
struct WholeIndexInput: Sendable {
  let content: LocalContent
  let prefix: LogPrefix
  let storeID: String
  let settingsLine: LineSpan
  /// The digest section carried forward (empty: none).
  let digest: [UInt8]
  /// The history section (`nil`: none).
  let history: LocalIndex.HistorySection?

  /// The index's bytes; `nil` when an entry does not fit the format.
  func encoded() -> [UInt8]? {
    unsealed()?.sealed(status: [], digest: digest)
  }

  /// The index before its status and digest sections, with room for a digest section of
  /// every record (what a sync's seals it with); `nil` when an entry does not fit the format.
  func unsealed() -> LocalIndex.Unsealed? {
    // Room for the whole file: the entries, their slots and the sections are written into
    // one buffer, which becomes the file's bytes.
    let entries =
      content.rows.count + content.tombstones.count + content.checkpoints.count
      + content.conflicts.count + content.diagnostics.count
    // A digest section holds each model's bucket table and about 72 bytes a record.
    let digestRoom = max(
      digest.count, (content.rows.count + content.tombstones.count) * 72 + 65_536)
    let sections =
      digestRoom + (history.map { $0.records.count + $0.offsets.count * LocalIndex.idSlot } ?? 0)
    var builder = LocalIndex.Builder(
      capacity: content.rows.count,
      reserving: entries * LocalIndex.Builder.bytesPerEntry + sections + 65_536)
    for stored in content.rows.values {
      guard let span = content.rowLines[stored.row],
        let entry = LocalStore.entry(for: stored, at: span), builder.append(entry)
      else { return nil }
    }
    guard LocalStore.appendKeyedEntries(of: content, to: &builder) else { return nil }
    return builder.unsealed(
      storeID: storeID, prefix: prefix, nextRow: content.nextRow.rawValue,
      liveChanges: Int64(content.liveChangeCount), settingsLine: settingsLine,
      bindingLine: content.bindingLine, history: history,
      declaration: LocalIndex.declaration(of: content.schemas), sectionRoom: digestRoom)
  }
}

/// What this process knows of the index: `end` is the prefix it covers, `nil` when there is
/// none that describes the file (or it was not looked at).
struct IndexState: Sendable {
  var end: Int64?
  /// The store file the index at `end` describes.
  var inode: UInt64?
  /// The index a focused store was opened from (brought up to date by its saves).
  var loaded: LocalIndex?
  /// Whether the index on disk was looked at (a store opened without a focus has not).
  var checked: Bool
  /// How many lines the history section lists the content had applied when this store built
  /// the index at `end`, or found none past another's (``LocalContent/listsNoHistoryLine(from:)``).
  var historyLines: Int? = nil
}

/// Index builds deferred by ``LocalStore/deferringIndexWrites(_:)``.
struct IndexDeferral: Sendable {
  /// How many deferring scopes are open.
  var depth = 0
  /// The build running on another core, with what was known of the index when it started.
  var pending: (job: Background<LocalIndex.Unsealed?>, digest: [UInt8], known: IndexState)?
}
