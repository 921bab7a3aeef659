import LocalStore
import MirrorStore
public import StashModel

extension SyncFolder {
  /// Conflicts recorded on this device: the open ones, or all of them; oldest first.
  public func conflicts(includingSettled: Bool = false) -> [SyncConflict] {
    guard let content else { return [] }
    return content.conflicts.values
      .filter { includingSettled || $0.state == .open }
      .sorted { ($0.noticedAt, $0.id) < ($1.noticedAt, $1.id) }
  }

  /// The conflict `text` names: its id or a unique prefix of it (4+ characters).
  ///
  /// - Throws: ``StashError`` when nothing or several conflicts match.
  public func conflict(_ text: String) throws(StashError) -> SyncConflict {
    let lowered = text.lowercased()
    let matches = conflicts(includingSettled: true).filter {
      $0.id.rawValue == lowered || (lowered.count >= 4 && $0.id.rawValue.hasPrefix(lowered))
    }
    switch matches.count {
    case 1: return matches[0]
    case 0:
      throw StashError(
        .refused, "No conflict '\(text)'; the open conflicts list shows which there are",
        hint: .listConflicts)
    default:
      throw .refused(
        "'\(text)' matches \(matches.count) conflicts: "
          + matches.map { "'\($0.id.short)'" }.joined(separator: ", ") + "; give more of the id")
    }
  }
}

/// How one field differs between the sides of a conflict.
public struct FieldDifference: Hashable, Sendable {
  /// The field's name.
  public let field: String
  /// Each side's value, in the conflict's side order (`nil` where the side is absent or
  /// deleted).
  public let values: [FieldValue?]
}

extension SyncFolder {
  /// The fields whose values differ between the live sides of a conflict, in schema order
  /// (device-local fields left out: they never travel).
  public func differences(in conflict: SyncConflict) -> [FieldDifference] {
    let records = conflict.sides.map { $0.snapshot?.record }
    guard let schema = records.compactMap({ $0?.schema }).first else { return [] }
    var found = [FieldDifference]()
    for (index, field) in schema.fields.enumerated() where !field.isDeviceLocal {
      let values = records.map { record in record.map { $0.values[index] } }
      if Set(values.map { $0.map { "\($0)" } ?? "-" }).count > 1 {
        found.append(FieldDifference(field: field.name, values: values))
      }
    }
    return found
  }
}
