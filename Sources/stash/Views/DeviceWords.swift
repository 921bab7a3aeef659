import Stash
import StashModel

// The words the command line says about devices and conflicts: presentation, so the CLI's,
// not the library's (an app words these its own way from ``SyncConflict`` and
// ``SyncFolder/differences(in:)``).

extension SyncFolder {
  /// Who holds a side of a conflict, in words a person knows: "this device", another device's
  /// name (by default its host name and the start of its id, as its segments say), or "another device (3f2b8c1e)"
  /// when its name is not known yet. Never a bare UUID.
  func sideName(_ side: ConflictSide) -> String {
    if side.origin == .local { return "this device" }
    guard let author = side.author else { return "the shared folder" }
    return name(of: author)
  }

  /// For a below-zero conflict: how many units the sides used between them and how many were
  /// there to use (the epoch's base plus every restock), merged as a merge would.
  func belowZeroFigures(of conflict: SyncConflict) -> (used: Int64, there: Int64)? {
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
  func explanation(of conflict: SyncConflict) -> String {
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
  fileprivate static func list(_ items: [String]) -> String {
    guard items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " and " + items.last!
  }
}

extension DeviceFolder {
  /// A device in words a person knows: "this device", its name (as its segments say), or
  /// "another device (3f2b8c1e)" while its name is not known here.
  func deviceName(_ device: DeviceID?) -> String {
    guard let device else { return "the shared folder" }
    return folder.name(of: device)
  }
}

extension SyncFolder {
  /// A device that is not the shared folder, in words a person knows: "this device", its
  /// name, or "another device (3f2b8c1e)"; the id's first 8 characters are added to a name
  /// two devices share.
  fileprivate func name(of device: DeviceID) -> String {
    if device == deviceID { return "this device" }
    let peers = peerNames
    guard let name = peers[device] else { return "another device (\(device.rawValue.prefix(8)))" }
    let sameName = peers.values.filter { $0 == name }.count > 1
    return sameName ? "\(name) (\(device.rawValue.prefix(8)))" : name
  }
}
