import MirrorStore
import StashFiles
import StashModel

extension CloudFolder {
  /// Takes out of `segments` (this zone's, just read) the parts of every unit that has not
  /// arrived whole, and reports them as waiting: a unit (``Segment/Unit``) is merged only once
  /// parts 1 through its last are all here, read now or read by an earlier import.
  ///
  /// Parts read by an earlier import are looked up by their header line, and only for a unit
  /// not whole among the new segments (a part that waited for a photo, or a sync tool's copy
  /// of a part).
  func holdBackPartialUnits(
    _ segments: inout [(path: String, segment: Segment)], content: MirrorContent,
    report: inout ImportReport
  ) throws(CloudError) {
    var parts = [UnitName: Set<Int64>]()
    var last = [UnitName: Int64]()
    for (_, segment) in segments {
      guard let unit = segment.unit else { continue }
      let name = UnitName(device: segment.device, id: unit.id)
      parts[name, default: []].insert(unit.part)
      if unit.isLast { last[name] = unit.part }
    }
    var partial = Set(parts.keys.filter { !Self.isWhole(parts[$0]!, last: last[$0]) })
    guard !partial.isEmpty else { return }
    // The parts read before, of the devices whose units are not whole among the new ones.
    for device in Set(partial.map(\.device)) {
      let prefix = "devices/\(device.rawValue)/"
      for path in content.readSegments where path.hasPrefix(prefix) {
        guard let unit = try readUnit(at: path, device: device) else { continue }
        let name = UnitName(device: device, id: unit.id)
        guard partial.contains(name) else { continue }
        parts[name]!.insert(unit.part)
        if unit.isLast { last[name] = unit.part }
      }
    }
    partial = partial.filter { !Self.isWhole(parts[$0]!, last: last[$0]) }
    segments.removeAll { path, segment in
      guard let unit = segment.unit, partial.contains(UnitName(device: segment.device, id: unit.id))
      else { return false }
      let name = UnitName(device: segment.device, id: unit.id)
      let missing = Self.firstMissingPart(parts[name]!, last: last[name])
      report.waiting.append(
        .init(
          segment: path,
          reason: "it is part \(unit.part) of an export of several segments, and part "
            + "\(missing) has not arrived yet: none of the export is applied until all of it "
            + "is here"))
      return true
    }
  }

  /// A unit, by the device that wrote it.
  private struct UnitName: Hashable {
    let device: DeviceID
    let id: String
  }

  /// Whether `parts` are 1 through `last`.
  private static func isWhole(_ parts: Set<Int64>, last: Int64?) -> Bool {
    guard let last else { return false }
    return (1...last).allSatisfy(parts.contains)
  }

  /// The lowest part missing from `parts` (the one after the highest when none is missing
  /// below it and the last is not known).
  private static func firstMissingPart(_ parts: Set<Int64>, last: Int64?) -> Int64 {
    let highest = last ?? (parts.max() ?? 0) + 1
    return (1...highest).first { !parts.contains($0) } ?? highest
  }

  /// The unit named in the header line of the segment at `path`, if it has one.
  private func readUnit(at path: String, device: DeviceID) throws(CloudError) -> Segment.Unit? {
    let read: SharedFiles.Read
    do {
      read = try files.readPrefix(path, count: CloudLimits.headerBytes)
    } catch {
      return nil
    }
    guard case .bytes(let prefix) = read, let header = Segment.Header.find(in: prefix),
      header.device == device
    else { return nil }
    return header.unit
  }
}
