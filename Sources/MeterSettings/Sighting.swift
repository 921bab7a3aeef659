public import StashModel

/// One device's last sighting of one meter: a `meter-sighting` record per (meter, device), so
/// that two devices seeing the same meter never edit one record and never conflict.
public struct MeterSighting: RecordConvertible, Hashable {
  /// The `meter-sighting` schema.
  public static let schema: Schema = try! Schema(
    model: "meter-sighting",
    fields: [
      FieldSpec("meterID", .reference(model: "meter")),
      FieldSpec("deviceID", .string),
      FieldSpec("deviceName", .string),
      FieldSpec("peripheralName", .optional(.string)),
      FieldSpec("seenAt", .date),
    ], changeTime: "seenAt",
    validate: { (record) throws(ModelError) in _ = try MeterSighting(record: record) })

  /// The record id: derived from the meter's id and the device's.
  public var id: RecordID { MeterSighting.id(meter: meterID, device: deviceID) }
  /// The meter seen.
  public var meterID: RecordID
  /// The device that saw it.
  public var deviceID: DeviceID
  /// That device's name.
  public var deviceName: String
  /// The name the peripheral advertised.
  public var peripheralName: String?
  /// When it was seen last.
  public var seenAt: Timestamp

  /// A sighting.
  public init(
    meterID: RecordID, deviceID: DeviceID, deviceName: String, peripheralName: String?,
    seenAt: Timestamp
  ) {
    self.meterID = meterID
    self.deviceID = deviceID
    self.deviceName = deviceName
    self.peripheralName = peripheralName
    self.seenAt = seenAt
  }

  /// The id of a device's sighting of a meter.
  public static func id(meter: RecordID, device: DeviceID) -> RecordID {
    .derived(model: "meter-sighting", naturalKey: meter.rawValue + " " + device.rawValue)
  }

  /// Reads a `meter-sighting` record.
  ///
  /// - Throws: ``ModelError`` when the record is of another model or a field does not fit.
  public init(record: Record) throws(ModelError) {
    guard record.schema == MeterSighting.schema else {
      throw ModelError("Record '\(record.id)' is a '\(record.model)', not a meter sighting")
    }
    meterID = try record.value("meterID")
    let device: String = try record.value("deviceID")
    guard let deviceID = DeviceID(device) else {
      throw ModelError("The sighting's device id '\(device)' is not a lowercase UUID")
    }
    self.deviceID = deviceID
    deviceName = try record.value("deviceName")
    peripheralName = try record.value("peripheralName")
    seenAt = try record.value("seenAt")
  }

  /// The `meter-sighting` record.
  public var record: Record {
    try! Record(
      schema: MeterSighting.schema, id: id,
      values: [
        FieldValue(meterID), FieldValue(deviceID.rawValue), FieldValue(deviceName),
        FieldValue(peripheralName), FieldValue(seenAt),
      ])
  }
}
