import CloudFolder
import StashBase
import StashModel

/// Another zone in the shared folder: a zone race (two devices turned sync on with their own
/// empty copies of the folder before the sync tool first ran, and each made a zone), or
/// another inventory's files put there by mistake.
///
/// Nothing of it is merged until a person says both zones are one inventory
/// (``SyncFolder/joinZone(_:)``); until then every sync, `sync status`, `sync verify` and the
/// doctor say so, naming its devices. Its files are never called damaged, and removing them is
/// never advised: they are another device's live data.
public struct OtherZone: Hashable, Sendable {
  /// The other zone's identifier.
  public let zone: String
  /// Whether the shared folder's `zone.json` names it (the sync tool kept its file): devices
  /// set up on this folder later join that zone.
  public let namedByZoneFile: Bool
  /// Its devices, as their segments describe them (``PeerStatus/segments``: how many of their
  /// segments hold changes this device does not have), by name then id.
  public let devices: [PeerStatus]
  /// Its segments holding changes this device does not have, relative to the shared folder.
  public let segments: [String]
  /// What this means and what to do, for a person; the last clause is the remedy.
  public let message: String

  /// Whether the zone has changes this device does not have (and not only a `zone.json`
  /// naming it): then this device and the shared folder do not hold the same data.
  public var hasLiveSegments: Bool { !segments.isEmpty }

  /// What to do: join that zone, once a person knows both are one inventory (`nil` for a
  /// zone only `zone.json` names).
  public var hint: Hint? { hasLiveSegments ? .joinZone(zone: String(zone.prefix(8))) : nil }

  init(_ sighting: ZoneSighting, thisZone: String?) {
    zone = sighting.zone
    namedByZoneFile = sighting.namedByZoneFile
    segments = sighting.segments
    devices = sighting.writers.map { device, writer in
      PeerStatus(
        device: device, name: writer.name, wroteAt: writer.lastWrote, segments: writer.segments)
    }.sorted { ($0.name ?? "\u{10FFFF}", $0.device) < ($1.name ?? "\u{10FFFF}", $1.device) }
    let short = "'\(sighting.zone.prefix(8))'"
    let mine = thisZone.map { " '\($0.prefix(8))'" } ?? ""
    guard sighting.hasLiveSegments else {
      message =
        "The shared folder's zone.json names zone \(short), not this device's zone\(mine) (the "
        + "sync tool kept another device's file): this device goes on with its own zone, and a "
        + "device set up on this folder later would join that one"
      return
    }
    let names = devices.map { $0.name ?? String($0.device.rawValue.prefix(8)) }
    let count =
      segments.count == 1 ? "1 segment of it holds" : "\(segments.count) segments of it hold"
    message =
      "Another zone, \(short) (\(names.joined(separator: ", "))), shares this folder: \(count) "
      + "changes this device does not have; nothing of it is merged here, nor do this device's "
      + "changes reach it (two devices turned sync on before the sync tool first ran, or "
      + "another inventory's files are here); if both are one inventory, have this device "
      + "join that zone"
  }
}

/// A photo this device holds that the shared folder lacks (missing, renamed by a sync tool,
/// cut short, damaged): the next sync publishes it again.
public struct PhotoToPublish: Hashable, Sendable {
  /// The photo's SHA-256, in hex.
  public let photo: String
  /// Its size in bytes.
  public let size: Int64
  /// What the shared folder holds under its name instead.
  public let problem: String

  init(_ lacking: LackingPhoto) {
    photo = lacking.photo.digest.hex
    size = lacking.photo.size
    problem = lacking.problem
  }
}
