import JSONLines
package import StashBase
import StashModel

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
          model: Array(stored.record.model.utf8), id: stored.record.id.utf8Bytes)
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

/// How many lines the history section's scans decoded, by store file, while a test watched
/// (``Census``): what lets a test prove which lines an index write decodes again (issue 26,
/// item 5).
package let historyCensus = Census()
