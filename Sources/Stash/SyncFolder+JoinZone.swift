import CloudFolder
import JSONLines
import MirrorStore
import StashModel

/// What ``SyncFolder/joinZone(_:)`` did.
public struct ZoneJoinReport: Hashable, Sendable {
  /// The zone this device synced until now.
  public let previous: String
  /// The zone it syncs from now on.
  public let zone: String
  /// Versions the next sync exports in the new zone: every version this device holds.
  public let versionsToExport: Int
}

extension SyncFolder {
  /// Has this device leave its zone and join another zone of the shared folder, once a person
  /// has said both are one inventory: the cure for a zone race (two devices turned sync on
  /// with their own empty copies of the folder before the sync tool first ran).
  ///
  /// Only a zone whose segments hold changes this device does not have can be joined
  /// (``OtherZone/hasLiveSegments``), and `text` must name it: its whole id, or at least its
  /// first eight characters (typing them is the confirmation). Two different inventories in
  /// one folder are never merged unless someone does this.
  ///
  /// The mirror is rewritten (as a compaction would: a new file, synchronized, renamed over
  /// the old one) bound to the new zone, with every version it holds (this device's, and those
  /// it read from devices of its old zone) waiting to be exported again, now in the new zone,
  /// so that the new zone's devices can read them. Nothing else changes: the segments it read
  /// stay read (but the new zone's, which are read next), its own segments stay its own, and
  /// the local store is not touched. The next
  /// sync reads the new zone's segments (its records meet this device's; records both zones
  /// created under one derived id meet as concurrent versions, which the reconciler merges or
  /// keeps as a conflict), then exports. The new zone's devices then find every version of
  /// this device's old segments among the new ones, and stop reporting them; devices of the
  /// old zone that did not join see this device in the new zone, and are told to join too.
  ///
  /// - Parameter text: The zone to join.
  /// - Returns: Both zones and how many versions the next sync exports.
  /// - Throws: ``StashError``: refused when sync is off, this device has no zone yet, `text`
  ///   names this device's zone, no other zone with changes here, or several; busy; damaged
  ///   when the mirror cannot be read or rewritten.
  public func joinZone(_ text: String) throws(StashError) -> ZoneJoinReport {
    let proof: FolderLock.Held
    do { proof = try lock.acquire() } catch { throw StashError(error) }
    defer { lock.release(proof) }
    let (mirror, cloud) = try syncParts()
    do { try mirror.refresh() } catch { throw StashError(error) }
    guard let current = mirror.content.zone else {
      throw StashError(
        .refused, "This device has not synced yet, so it belongs to no zone; sync first",
        hint: .syncAgain)
    }
    let wanted = text.lowercased()
    if current == wanted || (wanted.count >= 8 && current.hasPrefix(wanted)) {
      throw .refused("This device already syncs zone '\(current)'; nothing was changed")
    }
    let zones: [OtherZone]
    do throws(CloudError) {
      zones = try cloud.survey(mirror, deviceBlobs: blobs).otherZones
        .map { OtherZone($0, thisZone: current) }.filter(\.hasLiveSegments)
    } catch {
      throw StashError(error)
    }
    let matches = zones.filter {
      $0.zone == wanted || (wanted.count >= 8 && $0.zone.hasPrefix(wanted))
    }
    guard matches.count == 1, let target = matches.first else {
      let there = zones.map { zone in
        "'\(zone.zone.prefix(8))' ("
          + zone.devices.map { $0.name ?? String($0.device.rawValue.prefix(8)) }
          .joined(separator: ", ") + ")"
      }
      let listed =
        there.isEmpty
        ? "the shared folder holds changes of no other zone"
        : "the zones with changes there: " + there.joined(separator: ", ")
      throw .refused(
        (matches.isEmpty
          ? "No other zone '\(text)' holds changes in the shared folder '\(cloud.root)'"
          : "'\(text)' names several zones") + "; nothing was changed; " + listed)
    }
    let content = mirror.content
    // Its segments are read from now on: an earlier version of this code marked some read
    // after reporting them once, without merging them.
    let unread = Set(target.segments)
    let changes = content.changesForCompaction.compactMap { change -> MirrorChange? in
      switch change {
      case .bindZone: .bindZone(target.zone)
      case .addVersion(let version, _): .addVersion(version, pending: true)
      case .markRead(let segment) where unread.contains(segment): nil
      default: change
      }
    }
    try rewrite(mirror, as: content.deviceID, changes: changes) { path, reason in
      StashError(
        .refused,
        "Could not rewrite '\(path)' for zone '\(target.zone.prefix(8))' (\(reason)); nothing "
          + "was changed; join the zone again")
    }
    return ZoneJoinReport(
      previous: current, zone: target.zone, versionsToExport: mirror.content.pending.count)
  }
}
