import Foundation
public import Stash
public import StashModel

/// A device's meter settings: a ``SyncFolder`` opened with the meter schemas, and the rules
/// of seed 000 (pair, rename, unit, the connection lease, throttled sightings, forget).
public final class MeterFolder: Sendable {
  /// The generic folder underneath (sync, conflicts, resolution).
  public let folder: SyncFolder
  /// How long a connection lease lasts, in seconds.
  public static let leaseSeconds = 120.0
  /// The shortest time between two sightings one device records of one meter, in seconds.
  public static let sightingSeconds = 120.0

  /// The schemas of a meter folder.
  public static let schemas = [Meter.schema, MeterSighting.schema]

  /// Opens (or creates) a meter folder.
  ///
  /// - Throws: ``StashError`` when the folder cannot be opened.
  public init(at home: String, options: SyncFolder.Options = .init()) throws(StashError) {
    folder = try SyncFolder.open(at: home, schemas: MeterFolder.schemas, options: options)
  }

  /// Every meter, by MAC address.
  public var meters: [Meter] { folder.all(Meter.self).sorted { $0.macAddress < $1.macAddress } }

  /// The meter with a MAC address (any spelling), or `nil`.
  ///
  /// - Throws: ``StashError`` when `mac` is not a MAC address.
  public func meter(mac: String) throws(StashError) -> Meter? {
    folder.fetch(Meter.self, id: Meter.id(forMAC: try normalized(mac)))
  }

  /// Every device's last sighting of a meter, latest first.
  public func sightings(of meter: Meter) -> [MeterSighting] {
    folder.all(MeterSighting.self).filter { $0.meterID == meter.id }
      .sorted { $0.seenAt > $1.seenAt }
  }

  /// Pairs a meter: adds its settings, or returns them when it is already paired. Paired
  /// again after ``forget(mac:)``, it gets the same (derived) id.
  ///
  /// - Throws: ``StashError`` for a bad MAC address or a failed save.
  @discardableResult
  public func pair(mac: String, modelType: String? = nil) throws(StashError) -> Meter {
    let mac = try normalized(mac)
    if let known = folder.fetch(Meter.self, id: Meter.id(forMAC: mac)) { return known }
    return try folder.save(Meter(macAddress: mac, modelType: modelType, at: folder.clock()))
  }

  /// Renames a meter.
  ///
  /// - Throws: ``StashError`` for an unknown meter, a bad name, or a failed save.
  @discardableResult
  public func rename(mac: String, to name: String) throws(StashError) -> Meter {
    try change(mac) { $0.name = name }
  }

  /// Sets a meter's temperature unit from its raw value (`celsius` or `fahrenheit`).
  ///
  /// - Throws: ``StashError`` for an unknown meter or unit, or a failed save.
  @discardableResult
  public func setTemperatureUnit(mac: String, to unit: String) throws(StashError) -> Meter {
    guard let known = TemperatureUnit(rawValue: unit) else {
      throw .refused("The temperature unit '\(unit)' is not one of 'celsius' and 'fahrenheit'")
    }
    return try change(mac) { $0.temperatureUnit = known }
  }

  /// Takes the meter's connection lease for this device for ``leaseSeconds``: refused while
  /// another device's lease is live, taken over once it has expired, renewed when it is this
  /// device's.
  ///
  /// The check and the write are one transaction under the folder's lock. Two devices that
  /// take it while apart both succeed locally; their next sync keeps both as a conflict.
  ///
  /// - Throws: ``StashError`` (refused) naming the holder and the expiry while its lease is
  ///   live.
  @discardableResult
  public func connect(mac: String) throws(StashError) -> MeterLease {
    guard folder.deviceID != nil else {
      throw .refused("This device has no store yet; pair a meter first")
    }
    let device = try folder.writingDevice()
    let name = folder.settings.name
    let meter = try change(mac) { meter throws(StashError) in
      let now = meter.updatedAt
      if let lease = meter.lease, lease.deviceID != device, lease.isLive(at: now) {
        throw .refused(
          "The meter '\(meter.macAddress)' is connected on '\(lease.deviceName)' until "
            + "\(lease.expiresAt.date.ISO8601Format()); connect after that")
      }
      meter.lease = MeterLease(
        deviceID: device, deviceName: name, connectedAt: now,
        expiresAt: Timestamp(secondsSince1970: now.secondsSince1970 + Self.leaseSeconds)!)
    }
    return meter.lease!
  }

  /// Gives up this device's lease (nothing happens when another device holds it).
  ///
  /// - Throws: ``StashError`` for an unknown meter or a failed save.
  public func disconnect(mac: String) throws(StashError) {
    guard folder.deviceID != nil, let meter = try meter(mac: mac),
      meter.lease?.deviceID == (try folder.writingDevice())
    else { return }
    _ = try change(mac) { $0.lease = nil }
  }

  /// Records that this device saw the meter: at most once per ``sightingSeconds`` per device,
  /// in this device's own sighting record, so a burst of advertisements writes once and two
  /// devices never conflict over a sighting.
  ///
  /// - Returns: Whether a sighting was written.
  /// - Throws: ``StashError`` for an unknown meter or a failed save.
  @discardableResult
  public func sighted(mac: String, peripheralName: String? = nil) throws(StashError) -> Bool {
    guard let meter = try meter(mac: mac) else { throw unknown(mac) }
    guard folder.deviceID != nil else { return false }
    let device = try folder.writingDevice()
    let now = folder.clock()
    let id = MeterSighting.id(meter: meter.id, device: device)
    if let last = folder.fetch(MeterSighting.self, id: id),
      now.secondsSince1970 - last.seenAt.secondsSince1970 < Self.sightingSeconds
    {
      return false
    }
    try folder.save(
      MeterSighting(
        meterID: meter.id, deviceID: device, deviceName: folder.settings.name,
        peripheralName: peripheralName, seenAt: now))
    return true
  }

  /// Forgets a meter: deletes its settings and this device's sighting (a tombstone each, which
  /// travel). Pairing it again later gives it the same id, and other devices take it back.
  ///
  /// - Throws: ``StashError`` for an unknown meter or a failed save.
  public func forget(mac: String) throws(StashError) {
    guard let meter = try meter(mac: mac) else { throw unknown(mac) }
    try folder.delete(Meter.self, id: meter.id)
    if let device = folder.deviceID {
      let sighting = MeterSighting.id(meter: meter.id, device: device)
      if folder.fetch(MeterSighting.self, id: sighting) != nil {
        try folder.delete(MeterSighting.self, id: sighting)
      }
    }
  }

  private func change(
    _ mac: String, _ body: (inout Meter) throws(StashError) -> Void
  ) throws(StashError) -> Meter {
    let id = Meter.id(forMAC: try normalized(mac))
    guard folder.fetch(Meter.self, id: id) != nil else { throw unknown(mac) }
    let now = folder.clock()
    return try folder.update(Meter.self, id: id) { (meter) throws(StashError) in
      meter.updatedAt = now
      try body(&meter)
    }
  }

  private func normalized(_ mac: String) throws(StashError) -> String {
    do { return try MACAddress.normalized(mac) } catch { throw StashError(error) }
  }

  private func unknown(_ mac: String) -> StashError {
    StashError(
      .refused, "No meter '\(mac)' is paired; pair it first or list the meters",
      hint: .list(model: "meter"))
  }
}
