// MeterSettings: seed 000's Bluetooth meter settings as a second schema on Stash's generic
// SyncFolder, an example of embedding the engine with a tool's own models. It owns the two
// schemas, their validation and the lease and sighting rules; it never writes a store file
// itself (SyncFolder does).

public import StashModel

/// How a meter shows temperatures.
public enum TemperatureUnit: String, Hashable, Sendable, CaseIterable {
  case celsius
  case fahrenheit
}

/// Who holds a meter's connection, until when.
public struct MeterLease: Hashable, Sendable {
  /// The device holding the connection.
  public var deviceID: DeviceID
  /// Its name, for people ("Connected on iPhone-User").
  public var deviceName: String
  /// When it connected.
  public var connectedAt: Timestamp
  /// When the lease ends unless renewed: another device may take it over after this.
  public var expiresAt: Timestamp

  /// A lease.
  public init(
    deviceID: DeviceID, deviceName: String, connectedAt: Timestamp, expiresAt: Timestamp
  ) {
    self.deviceID = deviceID
    self.deviceName = deviceName
    self.connectedAt = connectedAt
    self.expiresAt = expiresAt
  }

  /// Whether the lease still holds at `time`.
  public func isLive(at time: Timestamp) -> Bool { time < expiresAt }
}

/// One meter's settings: the typed view of a `meter` record, keyed by its normalized MAC
/// address (its id is derived from it, so every device agrees on it).
public struct Meter: RecordConvertible, Hashable {
  /// The `meter` schema. `peripheralCache` is device-local: never hashed nor synced.
  public static let schema: Schema = try! Schema(
    model: "meter",
    fields: [
      FieldSpec("macAddress", .string),
      FieldSpec("name", .optional(.string)),
      FieldSpec("temperatureUnit", .optional(.string)),
      FieldSpec("modelType", .optional(.string)),
      FieldSpec("leaseDeviceID", .optional(.string)),
      FieldSpec("leaseDeviceName", .optional(.string)),
      FieldSpec("leaseConnectedAt", .optional(.date)),
      FieldSpec("leaseExpiresAt", .optional(.date)),
      FieldSpec("peripheralCache", .optional(.string), deviceLocal: true),
      FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt", candidateKey: "macAddress", lookup: ["name"],
    // A lease is one holder for one period: two devices taking it at once never mix.
    mergeGroups: [["leaseDeviceID", "leaseDeviceName", "leaseConnectedAt", "leaseExpiresAt"]],
    validate: { (record) throws(ModelError) in try Meter(record: record).validate() })

  /// The record id: derived from the MAC address.
  public var id: RecordID { Meter.id(forMAC: macAddress) }
  /// The normalized MAC address (`aa:bb:cc:dd:ee:ff`).
  public var macAddress: String
  /// The name a person gave it ("Kitchen Meter").
  public var name: String?
  /// The temperature unit (TC66C meters).
  public var temperatureUnit: TemperatureUnit?
  /// The model ("UM25C", "UM34C", "TC66C").
  public var modelType: String?
  /// Who holds the connection, if anyone.
  public var lease: MeterLease?
  /// What this device alone remembers of the peripheral (never hashed or synced).
  public var peripheralCache: String?
  /// When the settings last changed.
  public var updatedAt: Timestamp

  /// A meter with a normalized MAC address.
  public init(macAddress: String, modelType: String? = nil, at time: Timestamp) {
    self.macAddress = macAddress
    self.modelType = modelType
    self.updatedAt = time
  }

  /// The id of the meter with a normalized MAC address.
  public static func id(forMAC mac: String) -> RecordID {
    .derived(model: "meter", naturalKey: mac)
  }

  /// Reads a `meter` record.
  ///
  /// - Throws: ``ModelError`` when the record is of another model or a field does not fit.
  public init(record: Record) throws(ModelError) {
    guard record.schema == Meter.schema else {
      throw ModelError("Record '\(record.id)' is a '\(record.model)', not a meter")
    }
    macAddress = try record.value("macAddress")
    name = try record.value("name")
    let unit: String? = try record.value("temperatureUnit")
    if let unit {
      guard let known = TemperatureUnit(rawValue: unit) else {
        throw ModelError(
          "The temperature unit '\(unit)' is not one of 'celsius' and 'fahrenheit'")
      }
      temperatureUnit = known
    }
    modelType = try record.value("modelType")
    let leaseID: String? = try record.value("leaseDeviceID")
    let leaseName: String? = try record.value("leaseDeviceName")
    let connected: Timestamp? = try record.value("leaseConnectedAt")
    let expires: Timestamp? = try record.value("leaseExpiresAt")
    switch (leaseID, leaseName, connected, expires) {
    case (nil, nil, nil, nil): lease = nil
    case (let id?, let name?, let connected?, let expires?):
      guard let device = DeviceID(id) else {
        throw ModelError("The lease's device id '\(id)' is not a lowercase UUID")
      }
      lease = MeterLease(
        deviceID: device, deviceName: name, connectedAt: connected, expiresAt: expires)
    default:
      throw ModelError("A meter's lease needs its device id, name, connection and expiry times")
    }
    peripheralCache = try record.value("peripheralCache")
    updatedAt = try record.value("updatedAt")
  }

  /// The `meter` record.
  public var record: Record {
    try! Record(
      schema: Meter.schema, id: id,
      values: [
        FieldValue(macAddress), FieldValue(name), FieldValue(temperatureUnit?.rawValue),
        FieldValue(modelType), FieldValue(lease?.deviceID.rawValue),
        FieldValue(lease?.deviceName), FieldValue(lease?.connectedAt),
        FieldValue(lease?.expiresAt), FieldValue(peripheralCache), FieldValue(updatedAt),
      ])
  }

  /// Refuses settings no device could have meant.
  ///
  /// - Throws: ``ModelError`` naming the field.
  public func validate() throws(ModelError) {
    guard (try? MACAddress.normalized(macAddress)) == macAddress else {
      throw ModelError("The MAC address '\(macAddress)' is not normalized (aa:bb:cc:dd:ee:ff)")
    }
    if let name {
      guard !name.allSatisfy(\.isWhitespace), name.count <= 200 else {
        throw ModelError("A meter's name must show something and be at most 200 characters")
      }
    }
    if let lease, lease.expiresAt < lease.connectedAt {
      throw ModelError("A meter's lease cannot expire before it starts")
    }
  }
}

/// MAC addresses as people and radios write them.
public enum MACAddress {
  /// The normalized form, `aa:bb:cc:dd:ee:ff`, of `aa:bb:cc:dd:ee:ff`, `AA-BB-CC-DD-EE-FF`,
  /// `aabb.ccdd.eeff` or `AABBCCDDEEFF`.
  ///
  /// - Throws: ``ModelError`` when `text` is not 12 hexadecimal digits with optional `:`,
  ///   `-` or `.` separators.
  public static func normalized(_ text: String) throws(ModelError) -> String {
    var digits: [Character] = []
    for character in text.lowercased() {
      if character.isHexDigit, character.isASCII {
        digits.append(character)
      } else if character != ":" && character != "-" && character != "." {
        throw ModelError("'\(text)' is not a MAC address; write it as aa:bb:cc:dd:ee:ff")
      }
    }
    guard digits.count == 12 else {
      throw ModelError("'\(text)' is not a MAC address; write it as aa:bb:cc:dd:ee:ff")
    }
    return stride(from: 0, to: 12, by: 2).map { String(digits[$0..<$0 + 2]) }
      .joined(separator: ":")
  }
}
