import JSONLines
import StashModel
import Synchronization

extension HistoryScan {
  /// The put lines whose row and record a whole content already knows: each live row's
  /// current line (``LocalContent/rowLines``), which the store checked when it read it, or
  /// wrote itself. A scan for the history section takes their key from here instead of
  /// decoding the line again; every other line it finds (an earlier put of a row, a removal,
  /// a tombstone, a conflict) it still decodes and checks.
  struct KnownPuts {
    private var byOffset: [Int64: (span: LineSpan, row: Int64, key: LocalIndex.HistoryKey)] = [:]
    /// Whether these are every line of the file the history section lists: the content
    /// applied no other put, removal, tombstone or conflict (``LocalContent/historyLines``),
    /// as after an import or a second device's first sync, so no search of the file is needed.
    private(set) var areEveryLine = false

    /// The current lines of `content`'s live rows (none when its lines are not known).
    init(content: LocalContent) {
      guard content.linesAreKnown else { return }
      byOffset.reserveCapacity(content.rowLines.count)
      for (row, span) in content.rowLines {
        guard let stored = content.rows[row] else { continue }
        let key = LocalIndex.HistoryKey(
          model: Array(stored.record.model.utf8), id: Array(stored.record.id.rawValue.utf8))
        byOffset[span.offset] = (span, row.rawValue, key)
      }
      areEveryLine =
        content.isComplete && content.damagedRows.isEmpty
        && byOffset.count == content.rowLines.count && content.historyLines == byOffset.count
    }

    /// The scan of the whole file these lines are when they are every line it would find
    /// (``areEveryLine``); `nil` otherwise.
    var wholeScan: HistoryScan? {
      guard areEveryLine else { return nil }
      var scan = HistoryScan()
      for known in byOffset.values { scan.lines[known.key, default: []].append(known.span) }
      return scan
    }

    /// The row and record of the put line at `span`, if it is a known one.
    func put(at span: LineSpan) -> (row: Int64, key: LocalIndex.HistoryKey)? {
      guard let known = byOffset[span.offset], known.span == span else { return nil }
      return (known.row, known.key)
    }
  }
}

/// How many lines the history section's scans decoded, by store file, while a test watched:
/// the seam that lets a test prove which lines an index write decodes again (issue 26, item
/// 5), never a clock. Off (one relaxed atomic load per line) unless ``counting(path:_:)``
/// runs; counts go by file so that tests running at the same time add nothing.
package enum HistoryCensus {
  /// How many ``counting(path:_:)`` calls are running.
  private static let watchers = Atomic<Int>(0)
  /// The counts of the files being watched.
  private static let counts = Mutex<[String: Int]>([:])

  static func noteDecoded(in path: String) {
    guard watchers.load(ordering: .relaxed) > 0 else { return }
    counts.withLock { counts in
      if let current = counts[path] { counts[path] = current + 1 }
    }
  }

  /// Runs `body` and returns how many lines of the store file at `path` the history scans
  /// decoded meanwhile (on any thread).
  package static func counting<T>(
    path: String, _ body: () throws -> T
  ) rethrows -> (result: T, decoded: Int) {
    counts.withLock { $0[path] = 0 }
    watchers.add(1, ordering: .sequentiallyConsistent)
    defer {
      watchers.subtract(1, ordering: .sequentiallyConsistent)
      counts.withLock { $0[path] = nil }
    }
    let result = try body()
    return (result, counts.withLock { $0[path] ?? 0 })
  }
}
