import StashModel
import Testing

/// A schema carries its model's rules, so a version from another device is checked exactly
/// like a local edit.
@Suite struct SchemaValidationTests {
  static let now = Timestamp(secondsSince1970: 1_764_441_600)!

  @Test func anInventorySchemaRefusesWhatItsModelRefuses() throws {
    var item = Item(name: "Koleston 7/1", quantity: 5, createdAt: Self.now)
    try InventorySchemas.item.validate(item.record)
    item.quantity = -5
    #expect(throws: ModelError.self) { try InventorySchemas.item.validate(item.record) }
    item.quantity = 5
    item.name = "\u{1B}[2Jwiped"
    #expect(throws: ModelError.self) { try InventorySchemas.item.validate(item.record) }
  }

  @Test func datesOutsideTheYearsOneTo9999AreRefused() throws {
    let far = Timestamp(secondsSince1970: 1e308)!
    let item = Item(name: "tube", createdAt: Self.now, updatedAt: far)
    #expect(throws: ModelError.self) { try item.validate() }
    let place = Location(name: "shop", createdAt: Timestamp(secondsSince1970: -1e15)!)
    #expect(throws: ModelError.self) { try place.validate() }
    try Location(name: "shop", createdAt: Timestamp(secondsSince1970: 0)!).validate()
  }

  @Test func aReminderWithAnUnknownTriggerIsRefused() throws {
    let reminder = Reminder(locationID: .make(), message: "Buy dye", createdAt: Self.now)
    var record = reminder.record
    try InventorySchemas.reminder.validate(record)
    try record.set("trigger", to: .string("bogus"))
    #expect(throws: ModelError.self) { try InventorySchemas.reminder.validate(record) }
  }

  @Test func aRecordOfAnotherModelIsRefused() throws {
    let item = Item(name: "tube", createdAt: Self.now)
    #expect(throws: ModelError.self) { try InventorySchemas.location.validate(item.record) }
  }

  @Test func aSchemaWithoutRulesAcceptsEveryWellTypedRecord() throws {
    let schema = try Schema(model: "note", fields: [FieldSpec("text", .string)])
    try schema.validate(try Record(schema: schema, id: .make(), values: [.string("")]))
  }
}
