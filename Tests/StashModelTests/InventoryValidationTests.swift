import StashModel
import Testing

@Suite struct InventoryValidationTests {
  static let time = Timestamp(secondsSince1970: 1_764_441_600)!

  static func item(
    name: String = "Koleston 7/1", quantity: Int64 = 5, unit: String = "tube",
    threshold: Int64? = nil, barcode: String? = nil, notes: String = ""
  ) -> Item {
    Item(
      name: name, quantity: quantity, unit: unit, notes: notes, lowStockThreshold: threshold,
      barcode: barcode, createdAt: time)
  }

  @Test(arguments: [
    ("", "not empty"),
    ("   ", "not empty"),
    (String(repeating: "x", count: 201), "longer than 200"),
    ("line\nbreak", "control character"),
  ])
  func badItemNamesAreRefusedWithTheReason(name: String, reason: String) {
    #expect {
      try Self.item(name: name).validate()
    } throws: { error in
      (error as? ModelError)?.message.contains(reason) == true
    }
  }

  @Test(arguments: [
    ("\u{FEFF}", "shows nothing"), ("\u{200B}", "shows nothing"), ("\u{200D}", "shows nothing"),
    ("\u{200B}\u{FEFF} \u{2060}", "shows nothing"), ("\u{3164}", "shows nothing"),
    ("\u{115F}\u{1160}", "shows nothing"), ("\u{2800}", "shows nothing"),
    ("\u{FE0F}", "shows nothing"), ("\u{200F}", "shows nothing"), ("\u{AD}", "shows nothing"),
    ("\u{E0041}", "shows nothing"), ("\u{202E}abc", "character U+202E"), ("ab\u{202D}c", "U+202D"),
    ("x\u{2067}y", "U+2067"), ("\u{2066}a\u{2069}", "U+2066"), ("a\u{202A}", "U+202A"),
    ("a\u{202C}", "U+202C"), ("\u{202E}", "U+202E"),
  ])
  func invisibleOrBidiControlledNamesAreRefusedNamingTheField(name: String, reason: String) {
    func refuses(_ validate: () throws -> Void, _ field: String) -> Bool {
      do {
        try validate()
        return false
      } catch {
        let message = (error as? ModelError)?.message ?? ""
        // Compared as bytes: a joiner after the quote joins its grapheme cluster.
        return message.utf8.starts(with: "The \(field) '".utf8) && message.contains(reason)
          && !message.hasSuffix(".")
      }
    }
    #expect(refuses({ try Self.item(name: name).validate() }, "item name"))
    #expect(refuses({ try Location(name: name, createdAt: Self.time).validate() }, "location name"))
    #expect(refuses({ try Validate.name(name, of: "device") }, "device name"))
  }

  @Test(arguments: [
    "\u{5E9}\u{5DE}\u{5E4}\u{5D5}", "\u{634}\u{627}\u{645}\u{628}\u{648}", "🧴",
    "👩\u{200D}👩\u{200D}👧", "e\u{301}te", "Ölfarbe", "1\u{FE0F}\u{20E3}", "\u{5D0}\u{200F}1",
    "a\u{200D}b", "한국어", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", " padded ", "\u{FEFF}Soap",
  ])
  func namesInEveryScriptAreKept(name: String) throws {
    try Self.item(name: name).validate()
    try Location(name: name, createdAt: Self.time).validate()
  }

  @Test func otherOneLineTextsRefuseBidiControlsAndInvisibleOnlyText() throws {
    let brand = Item(name: "Soap", brand: "\u{FEFF}", createdAt: Self.time)
    #expect(throws: ModelError.self) { try brand.validate() }
    #expect(throws: ModelError.self) { try Self.item(unit: "\u{202E}ebut").validate() }
    #expect(throws: ModelError.self) { try Self.item(barcode: "\u{200B}\u{200B}").validate() }
    try Self.item(unit: " ").validate()  // spaces alone were always allowed outside names
    try Self.item(notes: "left \u{202E}right").validate()  // notes may hold them; shown escaped
  }

  @Test(arguments: [Int64(-1), -1_000, 1_000_001, .max, .min])
  func negativeOrAbsurdQuantitiesAreRefused(quantity: Int64) {
    #expect(throws: ModelError.self) { try Self.item(quantity: quantity).validate() }
    #expect(throws: ModelError.self) { try Self.item(threshold: quantity).validate() }
  }

  @Test func emptyNamesAreRefusedInPlainEnglish() {
    #expect(throws: ModelError("An item needs a name that is not empty")) {
      try Self.item(name: " ").validate()
    }
    #expect(throws: ModelError("A location needs a name that is not empty")) {
      try Location(name: "", createdAt: Self.time).validate()
    }
  }

  @Test func reasonableItemsPass() throws {
    try Self.item().validate()
    try Self.item(name: "Ölfarbe 🧴", quantity: 0, unit: "", threshold: 0).validate()
    try Self.item(quantity: Limits.maximumQuantity, notes: "line one\nline two\ttabbed").validate()
  }

  @Test(arguments: [
    (Double(200), Double(0)), (-90.0001, 0), (0, 180.5), (.nan, 0), (0, .infinity),
    (.greatestFiniteMagnitude, 0),
  ])
  func coordinatesOutOfRangeOrNotFiniteAreRefused(latitude: Double, longitude: Double) {
    let location = Location(
      name: "Salon", latitude: latitude, longitude: longitude, createdAt: Self.time)
    #expect(throws: ModelError.self) { try location.validate() }
  }

  @Test func aLatitudeWithoutALongitudeIsRefused() {
    let location = Location(name: "Salon", latitude: 10, createdAt: Self.time)
    #expect(throws: ModelError.self) { try location.validate() }
  }

  @Test(arguments: [0.0, -5, .infinity, .nan, 100_001])
  func radiiThatAreNotPositiveAndSaneAreRefused(radius: Double) {
    let location = Location(
      name: "Salon", latitude: 1, longitude: 2, radius: radius, createdAt: Self.time)
    #expect(throws: ModelError.self) { try location.validate() }
  }

  @Test func anEmptyReminderMessageIsRefused() {
    let reminder = Reminder(locationID: .make(), message: " ", createdAt: Self.time)
    #expect(throws: ModelError.self) { try reminder.validate() }
  }

  @Test func invalidUTF8IsRefusedNotRepaired() throws {
    #expect(throws: ModelError.self) {
      try String(validatingUTF8Bytes: [0x4B, 0xFF, 0x6F], what: "item name")
    }
    #expect(throws: ModelError.self) {
      try String(validatingUTF8Bytes: [0xED, 0xA0, 0x80], what: "item name")  // a surrogate
    }
    #expect(try String(validatingUTF8Bytes: Array("Köln".utf8), what: "item name") == "Köln")
  }

  @Test func typedViewsRoundTripThroughTheirRecords() throws {
    let item = Item(
      name: "Koleston", brand: "Wella", quantity: 3, unit: "tube", photo: BlobRef(of: [1, 2]),
      locationID: .make(), lowStockThreshold: 1, barcode: "123", createdAt: Self.time)
    #expect(try Item(record: item.record) == item)
    let location = Location(
      name: "Shelf", latitude: -0.0, longitude: 1, radius: 3, createdAt: Self.time)
    #expect(try Location(record: location.record) == location)
    let reminder = Reminder(
      locationID: .make(), itemID: .make(), message: "Hi", trigger: .leave, isEnabled: false,
      notificationIdentifier: "n1", createdAt: Self.time)
    #expect(try Reminder(record: reminder.record) == reminder)
    #expect(throws: ModelError.self) { try Item(record: location.record) }
  }

  @Test func recordIDsAreLowercaseUUIDs() {
    #expect(RecordID("3f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f") != nil)
    #expect(RecordID("3F2B8C1E-9D4A-4B7E-8C2F-1A2B3C4D5E6F") == nil)
    #expect(RecordID(normalizing: "3F2B8C1E-9D4A-4B7E-8C2F-1A2B3C4D5E6F") != nil)
    #expect(RecordID("3f2b8c1e9d4a4b7e8c2f1a2b3c4d5e6f") == nil)
    #expect(RecordID("") == nil)
    var random = SystemRandomNumberGenerator()
    let made = RecordID.random(using: &random)
    #expect(RecordID(made.rawValue) == made)
  }

  @Test func aRecordRefusesValuesOfTheWrongType() {
    #expect(throws: ModelError.self) {
      try Record(schema: InventorySchemas.item, id: .make(), fields: ["name": .integer(1)])
    }
    #expect(throws: ModelError.self) {
      try Record(schema: InventorySchemas.item, id: .make(), fields: ["nope": .integer(1)])
    }
  }
}
