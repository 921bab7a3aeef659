import Foundation
import LocalStore
import MirrorStore
import Stash
import StashModel
import StashTestSupport

/// A zone race, in some seeds: the last device turns sync on with its own empty view of the
/// folder and syncs before the folder reaches it, so it makes a zone of its own; then the sync
/// tool puts both zones' files in every view, keeping each view's `zone.json` or the first
/// device's. Until a person says both are one inventory (``joinZones()``, at a random step or
/// at last before quiescing), every sync of a device whose view holds the other zone's
/// segments must say so, `sync verify` must differ and name it, and nothing of either zone may
/// reach the other. After the join, the quiescence checks hold as for any seed: everything
/// converges, nothing is lost, no stock move is lost.
struct ZoneRace {
  /// The device that made its own zone.
  let racer: Int
  /// The records created in the racer's zone before the join.
  var keys = Set<RecordKey>()
  /// Whether the person said both zones are one inventory.
  var joined = false
}

/// What the zone races and lost photos of a run did (``Simulation/Totals/heal``).
struct HealTotals: CustomStringConvertible {
  var zoneRaces = 0
  var zoneJoins = 0
  var raceReports = 0
  var photosAttached = 0
  var photosLost = 0
  var photosPublished = 0

  mutating func add(_ other: HealTotals) {
    zoneRaces += other.zoneRaces
    zoneJoins += other.zoneJoins
    raceReports += other.raceReports
    photosAttached += other.photosAttached
    photosLost += other.photosLost
    photosPublished += other.photosPublished
  }

  var description: String {
    "\(zoneRaces) zone races (\(raceReports) syncs reported one, \(zoneJoins) joins), "
      + "\(photosAttached) photos attached, \(photosLost) lost by the sync tool, "
      + "\(photosPublished) published again"
  }
}

extension Simulation {
  /// The racer turns sync on with its own empty view and syncs an item of its own there.
  mutating func startZoneRace() throws {
    let index = devices.count - 1
    let device = devices[index]
    try open(device).folder.enableSync(cloud: device.view.path)
    try restart(device)
    try add(on: device)
    _ = try open(device).folder.sync()
    race = ZoneRace(racer: index, keys: Set(try open(device).items().map(\.record.key)))
    totals.heal.zoneRaces += 1
  }

  /// The folder reaches the racer: the other zone's files are in its view; the sync tool kept
  /// the racer's `zone.json`, or (half the time) the first device's, the racer's kept beside it
  /// as a conflicted copy.
  mutating func meetZones(_ device: SimulatedDevice) throws {
    guard Bool.random(using: &random) else { return }
    let zone = device.view.appendingPathComponent("zone.json")
    let manager = FileManager.default
    try manager.moveItem(
      at: zone, to: device.view.appendingPathComponent("zone (conflicted copy).json"))
    try manager.copyItem(at: devices[0].view.appendingPathComponent("zone.json"), to: zone)
  }

  /// The zone of a device's mirror.
  func zone(of device: SimulatedDevice) -> String? {
    device.process?.folder.mirror.store?.content.zone
  }

  /// The person says both zones are one inventory: every device not in the first device's
  /// zone joins it, once its view shows the first device's zone.
  mutating func joinZones() throws {
    guard var race, !race.joined else { return }
    race.joined = true
    self.race = race
    try rejoin(devices)
  }

  /// After the join, a folder copied or restored from a backup taken before it is in the zone
  /// that was left (its mirror is bound to it): the person joins it again, as every sync there
  /// tells them to.
  mutating func rejoinIfNeeded(_ device: SimulatedDevice) throws {
    guard race?.joined == true else { return }
    try rejoin([device])
  }

  private mutating func rejoin(_ candidates: [SimulatedDevice]) throws {
    let target = try zone(of: devices[0]).orFailure("the first device's zone")
    for device in candidates where zone(of: device) != target {
      device.online = true
      try deliver(from: devices[0].view, to: device.view)
      let folder = try restart(device)
      do {
        let joined = try folder.folder.joinZone(String(target.prefix(8)))
        if joined.zone != target { problems.append("6: joined \(joined.zone), not \(target)") }
        totals.heal.zoneJoins += 1
      } catch {
        problems.append("6: the join was refused: \(error)")
      }
      try restart(device)
    }
  }

  /// Before the join: a device whose view holds the other zone's segments says so in its sync
  /// report and in `sync verify`, and neither zone's records reached the other.
  mutating func checkZoneRace(
    _ device: SimulatedDevice, _ folder: DeviceFolder, _ report: SyncRunReport
  ) throws {
    guard let race, !race.joined else { return }
    let mine = zone(of: device)
    var others = Set<String>()
    for other in devices where other !== device && zone(of: other) != mine {
      if let id = other.process?.folder.deviceID { others.insert(id.rawValue) }
    }
    let segments = try files(in: device.view).filter { path in
      let parts = path.split(separator: "/")
      return parts.count == 3 && others.contains(String(parts[1])) && path.hasSuffix(".jsonl")
    }
    if !segments.isEmpty {
      totals.heal.raceReports += 1
      if !report.otherZones.contains(where: \.hasLiveSegments) {
        problems.append("6: a sync did not report the other zone's \(segments.count) segments")
      }
      if Int.random(in: 0..<3, using: &random) == 0 {
        let verify = try folder.verify()
        if verify.isInSync || !verify.otherZones.contains(where: \.hasLiveSegments) {
          problems.append("8: verify did not name the other zone")
        }
      }
    }
    let content = folder.folder.content
    let foreign =
      mine == zone(of: devices[race.racer])
      ? shared.map { RecordKey(model: "item", id: $0) } : Array(race.keys)
    if foreign.contains(where: { content?.row(for: $0) != nil }) {
      problems.append("6: a record of the other zone arrived before anyone joined it")
    }
  }
}

extension Optional {
  /// The value, or a test failure naming what was missing.
  func orFailure(_ what: String) throws -> Wrapped {
    guard let self else { throw ModelError("\(what) is missing") }
    return self
  }
}
