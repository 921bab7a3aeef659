import Stash
import StashBase
import StashModel

/// How another zone of the shared folder (a zone race) and a photo the folder lacks look, in
/// `sync`, `sync status` and `sync verify`.
enum OtherZoneView {
  /// The message with its advice as this tool's command, then one line per device.
  static func lines(_ zone: OtherZone) -> [String] {
    [Hint.worded(zone.message, zone.hint)]
      + zone.devices.map { device in
        "  \(device.name ?? "-") (\(device.device.rawValue.prefix(8))): last wrote "
          + "\(Format.time(device.wroteAt)), "
          + Format.count(device.segments ?? 0, "segment") + " not merged here"
      }
  }

  /// `{"zone", "zoneFile", "live", "devices": [{"id", "name", "lastWrote", "segments"}],
  /// "segments": [path]}`.
  static func json(_ zone: OtherZone) -> JSONValue {
    .object([
      "zone": .string(zone.zone),
      "zoneFile": .bool(zone.namedByZoneFile),
      "live": .bool(zone.hasLiveSegments),
      "devices": .array(zone.devices.map(SyncStatusCommand.peer)),
      "segments": .array(zone.segments.map { .string($0) }),
    ])
  }

  /// `Photo '13d9d10971cd' (40000 bytes) is not in the shared folder as it should be: …`.
  static func line(_ photo: PhotoToPublish) -> String {
    "Photo '\(photo.photo.prefix(12))' (\(Format.count(Int(photo.size), "byte"))) is not in "
      + "the shared folder as it should be: \(photo.problem); this device holds it, and its "
      + "next 'stash sync' publishes it again"
  }

  /// `{"photo", "size", "problem"}`.
  static func json(_ photo: PhotoToPublish) -> JSONValue {
    .object([
      "photo": .string(photo.photo), "size": .integer(photo.size),
      "problem": .string(photo.problem),
    ])
  }
}
