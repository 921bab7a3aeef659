import JSONLines
import StashBase
import StashFiles
public import StashModel

extension LocalStore {
  /// What ``setAsideDamagedRows(at:)`` moved out of the store.
  public struct SetAsideRows: Hashable, Sendable {
    /// The rows, as they were read.
    public let rows: [DamagedRow]
    /// The side file they were written to, one JSON object per line:
    /// `{"line","row","reason","op"}`.
    public let keptAt: String
  }

  /// Every row that cannot be trusted: those set aside when the file was read, and those
  /// whose stored hash does not match their record (which costs hashing every row).
  public var untrustedRows: [DamagedRow] {
    let content = self.content
    var found = Array(content.damagedRows.values)
    for stored in content.rows.values where stored.record.snapshotHash != stored.hash {
      found.append(
        DamagedRow(
          line: 0, row: stored.row.rawValue, key: stored.record.key,
          reason: "its fields do not match its hash '\(stored.hash.short)'",
          operation: LocalChange.putRow(stored.row, stored.record, stored.hash).json))
    }
    return found.sorted { $0.row < $1.row }
  }

  /// Moves every untrusted row (see ``untrustedRows``) to a side file beside the store, then
  /// removes them from the store in one transaction. This is `stash doctor --repair`.
  ///
  /// The side file is written and synchronized before the removal is saved, so a row is
  /// always in one place or both, never in neither.
  ///
  /// - Parameter time: Names the side file (`<store>.damaged-rows-<milliseconds>`).
  /// - Returns: What was set aside, or `nil` when every row is sound.
  /// - Throws: ``LocalStoreError``; the store is then as it was.
  @discardableResult
  public func setAsideDamagedRows(at time: Timestamp) throws(LocalStoreError) -> SetAsideRows? {
    do {
      return try update("setting damaged rows aside") { _, transaction throws(LocalStoreError) in
        let rows = untrustedRows
        guard !rows.isEmpty else { return nil }
        let sidePath = "\(path).damaged-rows-\(Int64(time.secondsSince1970 * 1000))"
        var bytes = [UInt8]()
        for row in rows {
          let entry: JSONObject = [
            "line": .integer(Int64(row.line)), "row": .integer(row.row),
            "reason": .string(row.reason), "op": .object(row.operation),
          ]
          JSONWriter.write(.object(entry), into: &bytes)
          bytes.append(UInt8(ascii: "\n"))
        }
        do throws(FileSystemError) {
          try file.fileSystemForRepairs.writeFileAtomically(sidePath, bytes)
        } catch {
          throw LocalStoreError.notSaved(action: "the damaged rows' side file", .io(error))
        }
        for row in rows { transaction.removeRow(RowID(row.row)) }
        return SetAsideRows(rows: rows, keptAt: sidePath)
      }
    } catch {
      throw error.failure
    }
  }
}
