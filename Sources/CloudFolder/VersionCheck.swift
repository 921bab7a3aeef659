import MirrorStore
import StashBase
import StashModel

extension MirrorVersion {
  /// Why this version, read from another device's segment, may not be applied; `nil` when it
  /// passes.
  ///
  /// A record passes its model's own checks (``Schema/validate(_:)``: exactly what a local
  /// edit must pass, so quantities, names, coordinates, triggers and dates are in range); its
  /// photos are no larger than ``CloudLimits/photoBytes``; a tombstone's date is a real date;
  /// the generation is in range (so that the next edit's, one more, cannot overflow). The
  /// hash was already checked against the payload when the line was read.
  func importProblem() -> String? {
    guard (1...CloudLimits.generation).contains(generation) else {
      return "its generation \(generation) is out of range"
    }
    guard Self.isDate(authoredAt) else {
      return "its author's time '\(authoredAt.secondsSince1970)' is not a date between the "
        + "years 1 and 9999"
    }
    switch snapshot {
    case .record(let record):
      do {
        try record.schema.validate(record)
      } catch {
        return error.message
      }
      for blob in blobs where !(0...CloudLimits.photoBytes).contains(blob.size) {
        return "its photo '\(blob.digest.hex.prefix(12))' claims \(blob.size) bytes, more than "
          + "the \(CloudLimits.photoBytes >> 20) MiB a photo may have"
      }
    case .tombstone(let tombstone):
      guard Self.isDate(tombstone.deletedAt) else {
        return "its deletion time '\(tombstone.deletedAt.secondsSince1970)' is not a date "
          + "between the years 1 and 9999"
      }
    }
    return nil
  }

  private static func isDate(_ time: Timestamp) -> Bool {
    (Limits.earliestDate...Limits.latestDate).contains(time.secondsSince1970)
  }
}
