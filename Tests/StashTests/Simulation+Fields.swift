import Foundation
import LocalStore
import Stash
import StashBase
import StashModel
import StashTestSupport

/// One plain field of one record, as the field-edit oracle follows it.
struct FieldEditKey: Hashable {
  let key: RecordKey
  let field: String
}

/// Field edits of several fields, back to earlier values too, and a location's coordinates
/// (one merge group), with the oracles of DESIGN's invariant 12 the model checks: a field
/// edit is lost only inside a conflict, a group is never mixed, a conflict is seen on every
/// device and one resolution settles it.
extension Simulation {
  static let itemFields = ["name", "brand", "notes", "unit"]

  /// One or two of an item's plain fields set to a new value, or back to one they had.
  mutating func editFields(on device: SimulatedDevice) throws {
    let folder = try open(device)
    guard let item = pick(folder) else { return }
    var values: [(String, String?)] = []
    for field in Self.itemFields.shuffled(using: &random).prefix(
      Int.random(in: 1...2, using: &random))
    {
      let earlier = (fieldEdits[FieldEditKey(key: item.record.key, field: field)] ?? [])
      let value: String?
      if let old = earlier.randomElement(using: &random), Bool.random(using: &random) {
        value = old
        totals.reverts += 1
      } else {
        value = "\(field) \(Int.random(in: 0..<1000, using: &random))"
      }
      values.append((field, field == "brand" ? value : value ?? "x"))
    }
    let after = try folder.editItem(item.id.rawValue) { (item: inout Item) throws(StashError) in
      for (field, value) in values {
        switch field {
        case "name": item.name = value ?? item.name
        case "brand": item.brand = value
        case "notes": item.notes = value ?? ""
        default: item.unit = value ?? ""
        }
      }
    }
    for (field, value) in values {
      fieldEdits[FieldEditKey(key: item.record.key, field: field), default: []].append(value)
    }
    totals.fieldEdits += values.count
    replaced.insert(item.record.snapshotHash)
    written.insert(after.record.snapshotHash)
  }

  /// A location's latitude, longitude or radius moved alone: the three merge as one group.
  mutating func moveLocation(on device: SimulatedDevice) throws {
    let folder = try open(device)
    guard let location = folder.locations().randomElement(using: &random) else { return }
    let which = Int.random(in: 0..<3, using: &random)
    let value = Double(Int.random(in: -80...80, using: &random))
    let after = try folder.editLocation(location.id.rawValue) {
      (place: inout Location) throws(StashError) in
      switch which {
      case 0: place.latitude = value
      case 1: place.longitude = value
      default: place.radius = abs(value) + 10
      }
    }
    placesWritten[after.record.key, default: [Self.group(of: location)]].insert(
      Self.group(of: after))
    totals.groupEdits += 1
    replaced.insert(location.record.snapshotHash)
    written.insert(after.record.snapshotHash)
  }

  static func group(of location: Location) -> [Double?] {
    [location.latitude, location.longitude, location.radius]
  }

  /// At quiescence, on every device: a field edited once in the whole history (nobody else
  /// edited that field of that record, so no merge and no resolution could set it aside) is
  /// what the record shows, unless the record is in an open conflict or was ever deleted (a
  /// person who deletes a record sets its edits aside, even when a resolution keeps it over
  /// the deletion from another side); and a place's
  /// coordinates are ones one edit wrote together, never a mix.
  mutating func checkFieldEdits(_ folders: [DeviceFolder]) {
    let open = Set(folders.flatMap { $0.folder.conflicts().map(\.key) })
    for (edit, values) in fieldEdits
    where values.count == 1 && !open.contains(edit.key) && !deletedOnPurpose.contains(edit.key) {
      let rows = folders.compactMap { $0.folder.content?.row(for: edit.key)?.record }
      guard rows.count == folders.count else { continue }
      totals.loneEditsChecked += 1
      let wanted: FieldValue = values[0].map { .string($0) } ?? .none
      for row in rows where row[field: edit.field] != wanted {
        problems.append(
          "12: the only edit of \(edit.field) of \(edit.key), to \(values[0] ?? "nothing"), "
            + "is lost (shown: \(String(describing: row[field: edit.field])))")
      }
    }
    for folder in folders {
      for location in folder.locations() {
        guard let written = placesWritten[location.record.key] else { continue }
        if !written.contains(Self.group(of: location)) {
          problems.append("12: \(location.record.key)'s coordinates were never written together")
        }
      }
    }
  }

  /// At quiescence: a conflict open on one device is open on every device holding the record
  /// (every side is in the shared graph, so every device sees the same leaves).
  mutating func checkConflictsEverywhere(_ folders: [DeviceFolder]) {
    let open = Set(folders.flatMap { $0.folder.conflicts().map(\.key) })
    for key in open {
      for (index, folder) in folders.enumerated() {
        guard let content = folder.folder.content,
          content.row(for: key) != nil || content.tombstones[key] != nil
        else { continue }
        if content.openConflicts(for: key).isEmpty {
          problems.append("12: \(key) is in conflict elsewhere but not on d\(index)")
        }
      }
    }
  }

  /// After quiescence: one resolution of each open conflict, on one device, settles it on
  /// every device once they sync (without a new conflict), and they converge.
  mutating func settleEveryConflict() throws {
    let folders = try devices.map { try restart($0) }
    let keys = Set(folders.flatMap { $0.folder.conflicts().map(\.key) }).sorted()
    guard !keys.isEmpty else { return }
    var decided = Set<RecordKey>()
    for key in keys {
      let holders = devices.indices.filter {
        !(devices[$0].process?.folder.content?.openConflicts(for: key).isEmpty ?? true)
      }
      guard let index = holders.randomElement(using: &random) else { continue }
      let folder = try open(devices[index])
      guard let conflict = folder.folder.content?.openConflicts(for: key).first else { continue }
      let choices: [ResolutionChoice] =
        [.local, .mirror, .deleted]
        + conflict.sides.compactMap { $0.snapshot.map { .version($0.hash.hex) } }
      for choice in choices.shuffled(using: &random) {
        if (try? folder.folder.resolveConflict(conflict.id.rawValue, keep: choice)) != nil {
          ledger.look(at: conflict.sides.compactMap(\.snapshot?.record))
          if folder.folder.content?.row(for: key) == nil { deletedOnPurpose.insert(key) }
          decided.insert(key)
          totals.resolutions += 1
          break
        }
      }
    }
    for _ in 0..<3 {
      for from in devices {
        for to in devices where to !== from { try deliver(from: from.view, to: to.view) }
      }
      for device in devices { try sync(device) }
    }
    let settled = try devices.map { try restart($0) }
    for key in decided {
      let still = settled.indices.filter {
        !(settled[$0].folder.content?.openConflicts(for: key).isEmpty ?? true)
      }
      if !still.isEmpty { problems.append("12: one resolution did not settle \(key) on \(still)") }
      let views = Set(settled.map { $0.folder.content?.row(for: key)?.hash.hex ?? "none" })
      if views.count > 1 { problems.append("5: \(key) diverged after its resolution") }
    }
  }
}
