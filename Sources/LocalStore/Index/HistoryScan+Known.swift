import JSONLines
package import StashBase
import StashModel

extension HistoryScan {
  /// The put lines whose row and record a whole content already knows: each live row's
  /// current line (``LocalContent/rowLines``), which the store checked when it read it, or
  /// wrote itself. A scan for the history section takes their key from here instead of
  /// decoding the line again; every other line it finds (an earlier put of a row, a removal,
  /// a tombstone, a conflict) it still decodes and checks.
  ///
  /// The table of those lines is built on first use: a scan of the lines after an index's
  /// prefix that finds no put (a first sync appends only checkpoints) never needs it, and
  /// building it for 100,000 rows was 2-3% of a first sync's CPU (issue 26, item 5).
  final class KnownPuts {
    private typealias Entry = (span: LineSpan, row: Int64, key: LocalIndex.HistoryKey)
    /// The content whose live rows' lines these are; `nil` when its lines are not known.
    private let content: LocalContent?
    /// The store file's path, which keys ``knownPutsCensus``.
    private let path: String
    /// The lines by offset, built from ``content`` on first use.
    private lazy var byOffset: [Int64: Entry] = Self.table(of: content, path: path)

    /// The current lines of `content`'s live rows (none when its lines are not known), read
    /// from the store file at `path`.
    init(content: LocalContent, path: String) {
      self.content = content.linesAreKnown ? content : nil
      self.path = path
      knownPutsCensus.note(path)
    }

    private static func table(of content: LocalContent?, path: String) -> [Int64: Entry] {
      guard let content else { return [:] }
      knownPutsCensus.note(path + " table")
      var byOffset = [Int64: Entry]()
      byOffset.reserveCapacity(content.rowLines.count)
      for (row, span) in content.rowLines {
        guard let stored = content.rows[row] else { continue }
        let key = LocalIndex.HistoryKey(
          model: Array(stored.record.model.utf8), id: stored.record.id.utf8Bytes)
        byOffset[span.offset] = (span, row.rawValue, key)
      }
      return byOffset
    }

    /// Whether these lines and the content's earlier ones (``LocalContent/earlierHistory``)
    /// are every line of the file the history section lists: every put, removal, tombstone
    /// and conflict the content applied (``LocalContent/historyLines``) is one of them, so no
    /// search of the file is needed.
    var areEveryLine: Bool {
      guard let content, content.notedEveryHistoryLine else { return false }
      return byOffset.count == content.rowLines.count
    }

    /// The scan of the whole file these lines and the content's earlier ones are, when they
    /// are every line it would find (``areEveryLine``); `nil` otherwise.
    var wholeScan: HistoryScan? {
      guard areEveryLine, let content else { return nil }
      var scan = HistoryScan()
      for known in byOffset.values { scan.lines[known.key, default: []].append(known.span) }
      for earlier in content.earlierHistory {
        scan.lines[earlier.key, default: []].append(earlier.span)
      }
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
/// item 5). The key of the store file's path and `" scans"` counts the scans of its lines.
package let historyCensus = Census()

/// How many ``HistoryScan/KnownPuts`` were made (key: the store file's path) and how many
/// built their table (key: the path and `" table"`), while a test watched (``Census``). The
/// key is the path, not the device id, because tests running at once share device ids.
package let knownPutsCensus = Census()
