/// A saved place: the typed view of a `location` record.
public struct Location: Hashable, Sendable {
  public var id: RecordID
  public var name: String
  /// Degrees, -90 through 90; set together with ``longitude``.
  public var latitude: Double?
  /// Degrees, -180 through 180; set together with ``latitude``.
  public var longitude: Double?
  /// Metres around the point that count as being there, for reminders.
  public var radius: Double?
  public var notes: String
  public var createdAt: Timestamp
  public var updatedAt: Timestamp

  /// A new location with a fresh id, created and updated at `time`.
  public init(
    id: RecordID = .make(), name: String, latitude: Double? = nil, longitude: Double? = nil,
    radius: Double? = nil, notes: String = "", createdAt: Timestamp, updatedAt: Timestamp? = nil
  ) {
    self.id = id
    self.name = name
    self.latitude = latitude
    self.longitude = longitude
    self.radius = radius
    self.notes = notes
    self.createdAt = createdAt
    self.updatedAt = updatedAt ?? createdAt
  }

  /// Refuses a location a person could not have meant.
  ///
  /// - Throws: ``ModelError``: an empty name, a latitude or longitude out of range or alone,
  ///   a radius that is not positive or over ``Limits/maximumRadius``, non-finite numbers.
  public func validate() throws(ModelError) {
    try Validate.name(name, of: "location")
    if let latitude {
      try Validate.number(latitude, in: -90...90, field: "latitude", of: "location")
    }
    if let longitude {
      try Validate.number(longitude, in: -180...180, field: "longitude", of: "location")
    }
    guard (latitude == nil) == (longitude == nil) else {
      throw ModelError("A location needs both a latitude and a longitude, or neither")
    }
    if let radius {
      try Validate.number(radius, in: 0...Limits.maximumRadius, field: "radius", of: "location")
      guard radius > 0 else { throw ModelError("The location radius must be more than 0 metres") }
    }
    try Validate.longText(notes, field: "notes", of: "location")
    try Validate.dates(created: createdAt, updated: updatedAt, of: "location")
  }
}

extension Location {
  /// Reads the typed view of a `location` record.
  ///
  /// - Throws: ``ModelError`` when the record is of another model.
  public init(record: Record) throws(ModelError) {
    guard record.schema == InventorySchemas.location else {
      throw ModelError("Record '\(record.id)' is a '\(record.model)', not a location")
    }
    var fields = FieldReader(record)
    self.init(
      id: record.id, name: fields.string(), latitude: fields.optionalDouble(),
      longitude: fields.optionalDouble(), radius: fields.optionalDouble(), notes: fields.string(),
      createdAt: fields.date(), updatedAt: fields.date())
  }

  /// The generic record, in ``InventorySchemas/location`` order.
  public var record: Record {
    try! Record(
      schema: InventorySchemas.location, id: id,
      values: [
        .string(name), .optional(latitude, FieldValue.double),
        .optional(longitude, FieldValue.double), .optional(radius, FieldValue.double),
        .string(notes), .date(createdAt), .date(updatedAt),
      ])
  }
}
