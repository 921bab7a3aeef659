import JSONLines
import MirrorStore
import StashCrypto
import StashFiles
import StashModel

extension CloudFolder {
  /// Reads one segment file and sorts out what cannot be used: `nil` when it waits or is
  /// rejected (and `report` says so).
  func segment(
    at path: String, content: MirrorContent, announced: Set<KeyID>,
    retired: [KeyID: Retirement], report: inout ImportReport
  ) throws(CloudError) -> Segment? {
    let read: SharedFiles.Read
    do {
      read = try files.read(path, limit: CloudLimits.segmentBytes)
    } catch {
      report.rejected.append(.init(segment: path, reason: "it cannot be read: \(error.reason)"))
      return nil
    }
    switch read {
    case .missing:
      return nil
    case .notRegular(let culprit, let kind):
      let what = culprit == path ? "it" : "'\(culprit)'"
      report.rejected.append(
        .init(segment: path, reason: "\(what) is a \(kind.noun), not a regular file"))
      return nil
    case .tooLarge(let size):
      report.rejected.append(
        .init(
          segment: path,
          reason: "it is \(size) bytes, more than the \(CloudLimits.segmentBytes >> 20) MiB a "
            + "segment may have"))
      return nil
    case .bytes(let bytes):
      switch Segment.read(bytes, schemas: content.schemas, keyring: keyring) {
      case .missingKey(let key) where !announced.contains(key):
        report.rejected.append(
          .init(
            segment: path,
            reason: "it is sealed with the key '\(key.hex)', which is not a key of this shared "
              + "folder; it was not applied"))
        return nil
      case .missingKey(let key):
        report.waiting.append(
          .init(
            segment: path,
            reason: "it is sealed with the key '\(key.hex)', which this device lacks (the key "
              + "was rotated): enter that key to read it"))
        if !report.missingKeys.contains(key.hex) { report.missingKeys.append(key.hex) }
        return nil
      case .incomplete(let reason):
        report.waiting.append(.init(segment: path, reason: "not complete yet: \(reason)"))
        return nil
      case .damaged(let reason):
        report.rejected.append(.init(segment: path, reason: reason))
        return nil
      case .complete(let segment):
        let folder = path.split(separator: "/").dropFirst().first.map(String.init)
        guard segment.device.rawValue == folder else {
          report.rejected.append(
            .init(
              segment: path,
              reason: "it names device '\(segment.device.rawValue.prefix(8))' but lies in "
                + "another device's folder"))
          return nil
        }
        if let key = segment.sealedWith, let retirement = retired[key],
          segment.sequence > retirement.segments[segment.device.rawValue] ?? 0
        {
          report.rejected.append(
            .init(
              segment: path,
              reason: "it is sealed with the key '\(key.hex)', retired by a rotation before it "
                + "was written (a revoked device's, or one not given the new key yet); it was "
                + "not applied"))
          return nil
        }
        if segment.sealedWith != nil, Self.sequence(of: path) != segment.sequence {
          report.rejected.append(
            .init(
              segment: path,
              reason: "it is sealed as segment \(segment.sequence) but lies under another name "
                + "(moved or replayed); it was not applied"))
          return nil
        }
        return segment
      }
    }
  }
}
