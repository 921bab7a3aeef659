import JSONLines
import StashBase
import StashModel

/// Where the lines of a content's tombstones, checkpoints, conflicts and diagnostics are: what
/// the index's entries of those kinds are built from.
struct KeyedLines: Sendable {
  var tombstones = CompactDictionary<RecordKey, LineSpan>()
  var checkpoints = CompactDictionary<RecordKey, LineSpan>()
  /// Every conflict's line (the index lists the open ones).
  var conflicts: [ConflictID: LineSpan] = [:]
  var diagnostics: [LocalContent.DiagnosticKey: LineSpan] = [:]
}

/// What changed in a content built from the index, besides rows: each changed tombstone,
/// checkpoint, conflict and diagnostic and its line (`nil`: removed), so that the index can be
/// brought up to date without the whole store.
struct KeyedChanges: Sendable {
  var tombstones: [RecordKey: LineSpan?] = [:]
  /// The checkpoints put or removed since the index (since the binding, when
  /// ``checkpointsRebound``).
  var checkpoints: [RecordKey: LineSpan?] = [:]
  /// Whether the checkpoints were bound again since the index: none of its checkpoints holds.
  var checkpointsRebound = false
  /// The conflicts put since the index (the content has their latest state).
  var conflicts: [ConflictID: LineSpan] = [:]
  var diagnostics: [LocalContent.DiagnosticKey: LineSpan?] = [:]

  /// Whether nothing changed.
  var isEmpty: Bool {
    tombstones.isEmpty && checkpoints.isEmpty && !checkpointsRebound && conflicts.isEmpty
      && diagnostics.isEmpty
  }
}

extension LocalContent {
  /// Records where the line of a tombstone, checkpoint, conflict or diagnostic change is (and,
  /// in a content that is not complete, that it changed since the index).
  mutating func noteKeyedLine(of change: LocalChange, at span: LineSpan) {
    let tracked = !isComplete
    switch change {
    case .putTombstone(let tombstone):
      keyedLines.tombstones[tombstone.key] = span
      if tracked { keyedChangesSinceIndex.tombstones[tombstone.key] = .some(span) }
    case .removeTombstone(let key):
      keyedLines.tombstones[key] = nil
      if tracked { keyedChangesSinceIndex.tombstones[key] = .some(nil) }
    case .putCheckpoint(let key, _):
      keyedLines.checkpoints[key] = span
      if tracked { keyedChangesSinceIndex.checkpoints[key] = .some(span) }
    case .removeCheckpoint(let key):
      keyedLines.checkpoints[key] = nil
      if tracked { keyedChangesSinceIndex.checkpoints[key] = .some(nil) }
    case .bindCheckpoints:
      keyedLines.checkpoints.removeAll(keepingCapacity: true)
      if tracked {
        keyedChangesSinceIndex.checkpoints.removeAll()
        keyedChangesSinceIndex.checkpointsRebound = true
      }
    case .putConflict(let conflict):
      keyedLines.conflicts[conflict.id] = span
      if tracked { keyedChangesSinceIndex.conflicts[conflict.id] = span }
    case .putDiagnostic(let diagnostic):
      let key = DiagnosticKey(key: diagnostic.key, store: diagnostic.store)
      keyedLines.diagnostics[key] = span
      if tracked { keyedChangesSinceIndex.diagnostics[key] = .some(span) }
    case .removeDiagnostic(let key, let store):
      let key = DiagnosticKey(key: key, store: store)
      keyedLines.diagnostics[key] = nil
      if tracked { keyedChangesSinceIndex.diagnostics[key] = .some(nil) }
    case .putRow, .removeRow, .damagedRow, .putSettings: break
    }
  }

  /// Notes the line of history `change` (read from or written to `span`) makes earlier, or
  /// is, besides the live rows' current lines (``earlierHistory``), as a scan of the file
  /// would attribute it (``HistoryScan``): a put's replaced line and a removal's line to the
  /// row's record, a tombstone's and a conflict's to theirs. Anything a scan would read
  /// otherwise (a damaged row, a row put with another record's key) ends the tracking.
  mutating func noteEarlierHistory(of change: LocalChange, at span: LineSpan) {
    func key(_ key: RecordKey) -> LocalIndex.HistoryKey {
      LocalIndex.HistoryKey(model: Array(key.model.utf8), id: key.id.utf8Bytes)
    }
    switch change {
    case .putRow(let row, let record, _):
      guard let old = rows[row] else { return }  // a new row: its line is a current one
      guard old.record.key == record.key, let line = rowLines[row] else {
        return stopTrackingHistory()
      }
      earlierHistory.append((line, key(record.key)))
    case .removeRow(let row):
      // A row this content never held: a scan leaves its removal unresolved, which the
      // line count then shows (``HistoryScan/KnownPuts/areEveryLine``).
      guard let old = rows[row] else { return }
      guard let line = rowLines[row] else { return stopTrackingHistory() }
      let removed = key(old.record.key)
      earlierHistory.append((line, removed))
      earlierHistory.append((span, removed))
    case .damagedRow:
      return stopTrackingHistory()
    case .putTombstone(let tombstone):
      earlierHistory.append((span, key(tombstone.key)))
    case .putConflict(let conflict):
      earlierHistory.append((span, key(conflict.key)))
    default:
      return
    }
    // Bounded by the store: past one such line a row, the file is searched instead.
    if earlierHistory.count > rows.count + 1_024 { stopTrackingHistory() }
  }

  /// Whether the live rows' current lines and ``earlierHistory`` are every line the index's
  /// history section lists: every put, removal, tombstone and conflict this whole content
  /// applied (``historyLines``) is one of them, so the file need not be searched for them.
  var notedEveryHistoryLine: Bool {
    isComplete && linesAreKnown && historyIsTracked && damagedRows.isEmpty
      && historyLines == rowLines.count + earlierHistory.count
  }

  /// Whether no line the index's history section lists is at or after `end` in the file:
  /// known only for a whole content that noted every such line it applied (they are then the
  /// live rows' current lines and ``earlierHistory``); `false` when it did not.
  func listsNoHistoryLine(from end: Int64) -> Bool {
    guard notedEveryHistoryLine else { return false }
    for span in rowLines.values where span.offset >= end { return false }
    return !earlierHistory.contains { $0.span.offset >= end }
  }

  private mutating func stopTrackingHistory() {
    historyIsTracked = false
    earlierHistory = []
  }
}
