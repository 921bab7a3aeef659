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
  /// Who holds a side of a conflict, in words a person knows: "this device", another device's
  /// name (its host name by default, as its segments say), or "another device (3f2b8c1e)"
  /// when its name is not known yet. Never a bare UUID.
  public func sideName(_ side: ConflictSide) -> String {
    if side.origin == .local || side.author == deviceID { return "this device" }
    guard let author = side.author else { return "the shared folder" }
    let peers = mirror.store?.content.peers ?? [:]
    guard let name = peers[author]?.name else {
      return "another device (\(author.rawValue.prefix(8)))"
    }
    let sameName = peers.values.filter { $0.name == name }.count > 1
    return sameName ? "\(name) (\(author.rawValue.prefix(8)))" : name
  }

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

  /// For a below-zero conflict: how many units the sides used between them and how many were
  /// there to use (the epoch's base plus every restock), merged as a merge would.
  public func belowZeroFigures(of conflict: SyncConflict) -> (used: Int64, there: Int64)? {
    let counters = conflict.sides.compactMap { side -> Counter? in
      guard case .counter(let counter)? = side.snapshot?.record?[field: "quantity"] else {
        return nil
      }
      return counter
    }
    guard let first = counters.first, counters.allSatisfy({ $0.isSameEpoch(as: first) }) else {
      return nil
    }
    let merged = first.merged(with: Array(counters.dropFirst()))
    let used = merged.decrements.values.reduce(0, &+)
    let there = merged.increments.values.reduce(merged.base, &+)
    return (used, there)
  }

  /// One line saying what kind of disagreement this is and what to do about it.
  public func explanation(of conflict: SyncConflict) -> String {
    let other =
      conflict.sides.first { $0.origin == .mirror && $0.author != deviceID }.map(sideName)
      ?? "another device"
    // The fields in dispute: a choice decides them, every other change is kept merged.
    let fields = conflict.fields.map { "'\($0)'" }
    let what = fields.isEmpty ? "it" : Self.list(fields)
    let kept = fields.isEmpty ? "" : " (every other change is kept)"
    switch conflict.kind {
    case .bothEdited:
      return "Both changed: this device and \(other) each changed \(what) since they last "
        + "agreed; keep one side for \(fields.count > 1 ? "them" : "it")\(kept)"
    case .concurrentVersions:
      return "Changed at the same time on several devices"
        + (fields.isEmpty ? "" : " (\(what))") + "; keep one side\(kept), or 'deleted'"
    case .deletedHereEditedThere:
      return "Deleted here, edited on \(other): keep the edit ('mirror'), or 'deleted' to "
        + "delete it everywhere"
    case .editedHereDeletedThere:
      return "Edited here, deleted on \(other): keep the edit ('local'), or 'deleted' to "
        + "delete it everywhere"
    case .missingInMirror:
      return "Here, but gone from the shared folder without a deletion: keep it ('local') to "
        + "send it again, or 'deleted'"
    case .missingHere:
      return "In the shared folder, but gone from this device without a deletion: keep it "
        + "('mirror') to bring it back, or 'deleted'"
    case .belowZero:
      guard let figures = belowZeroFigures(of: conflict) else {
        return "Below zero: more was used than there was; keep one side, or recount"
      }
      return "Below zero: \(figures.used) used, \(figures.there) "
        + "\(figures.there == 1 ? "was" : "were") there; keep one side, or count what is on "
        + "the shelf and set the quantity to it"
    case .merged:
      return "Merged: changes made at the same time were merged field by field; nothing to decide"
    }
  }

  /// `'a'`, `'a' and 'b'`, `'a', 'b' and 'c'`.
  private static func list(_ items: [String]) -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " and " + items.last!
  }
}
