/// The three models of the inventory, as schemas the engine works with.
///
/// Each declares the field a person names its records by (an item's and a location's name, a
/// reminder's message): lookups, labels and the local index know no other.
///
/// The field order here is the canonical hash order: changing it changes every hash, so it
/// is pinned by `Fixtures/snapshots/`.
public enum InventorySchemas {
  /// `item`: a product on a shelf.
  public static let item: Schema = try! Schema(
    model: "item",
    fields: [
      FieldSpec("name", .string),
      FieldSpec("brand", .optional(.string)),
      FieldSpec("quantity", .counter),
      FieldSpec("unit", .string),
      FieldSpec("notes", .string),
      FieldSpec("photo", .optional(.blob)),
      FieldSpec("locationID", .optional(.reference(model: "location"))),
      FieldSpec("lowStockThreshold", .optional(.integer)),
      FieldSpec("barcode", .optional(.string)),
      FieldSpec("createdAt", .date),
      FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt", candidateKey: "barcode", lookup: ["name"],
    validate: { (record) throws(ModelError) in try Item(record: record).validate() })

  /// `location`: a saved place, optionally with coordinates for reminders.
  public static let location: Schema = try! Schema(
    model: "location",
    fields: [
      FieldSpec("name", .string),
      FieldSpec("latitude", .optional(.double)),
      FieldSpec("longitude", .optional(.double)),
      FieldSpec("radius", .optional(.double)),
      FieldSpec("notes", .string),
      FieldSpec("createdAt", .date),
      FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt", lookup: ["name"],
    // A place is its coordinates and radius together: concurrent moves never mix them.
    mergeGroups: [["latitude", "longitude", "radius"]],
    validate: { (record) throws(ModelError) in try Location(record: record).validate() })

  /// `reminder`: a message shown on arriving at or leaving a location.
  ///
  /// `notificationIdentifier` is device-local: it names the notification this device
  /// scheduled, so it is neither hashed nor copied.
  public static let reminder: Schema = try! Schema(
    model: "reminder",
    fields: [
      FieldSpec("locationID", .reference(model: "location")),
      FieldSpec("itemID", .optional(.reference(model: "item"))),
      FieldSpec("message", .string),
      FieldSpec("trigger", .string),
      FieldSpec("enabled", .bool),
      FieldSpec("notificationIdentifier", .optional(.string), deviceLocal: true),
      FieldSpec("createdAt", .date),
      FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt", lookup: ["message"],
    validate: { (record) throws(ModelError) in try Reminder(record: record).validate() })

  /// A registry with the three inventory schemas.
  public static var registry: SchemaRegistry {
    try! SchemaRegistry([item, location, reminder])
  }
}
