/// A product on a shelf: the typed view of an `item` record.
public struct Item: Hashable, Sendable {
  public var id: RecordID
  public var name: String
  public var brand: String?
  /// The units on hand as a counter: moves (consume, restock) on several devices merge.
  public var stock: Counter
  /// Whole units on hand, 0 through ``Limits/maximumQuantity``: the stock's value.
  ///
  /// Setting it is a recount ("there are N now"): a new epoch that no concurrent move shares.
  public var quantity: Int64 {
    get { stock.value ?? 0 }
    set { stock = .recount(to: newValue, epoch: .make()) }
  }
  /// What one unit is ("tube", "bottle"); may be empty.
  public var unit: String
  public var notes: String
  public var photo: BlobRef?
  /// The location the item is kept at; it may dangle (deleted here, or not arrived yet).
  public var locationID: RecordID?
  /// At or below this quantity the item is low on stock.
  public var lowStockThreshold: Int64?
  public var barcode: String?
  public var createdAt: Timestamp
  public var updatedAt: Timestamp

  /// A new item with a fresh id, created and updated at `time`; its stock starts the record's
  /// first epoch at `quantity`.
  public init(
    id: RecordID = .make(), name: String, brand: String? = nil, quantity: Int64 = 0,
    unit: String = "", notes: String = "", photo: BlobRef? = nil, locationID: RecordID? = nil,
    lowStockThreshold: Int64? = nil, barcode: String? = nil, createdAt: Timestamp,
    updatedAt: Timestamp? = nil
  ) {
    self.init(
      id: id, name: name, brand: brand, stock: Counter(base: quantity), unit: unit, notes: notes,
      photo: photo, locationID: locationID, lowStockThreshold: lowStockThreshold,
      barcode: barcode, createdAt: createdAt, updatedAt: updatedAt)
  }

  /// An item with its stock counter given as it is.
  public init(
    id: RecordID, name: String, brand: String?, stock: Counter, unit: String, notes: String,
    photo: BlobRef?, locationID: RecordID?, lowStockThreshold: Int64?, barcode: String?,
    createdAt: Timestamp, updatedAt: Timestamp?
  ) {
    self.id = id
    self.name = name
    self.brand = brand
    self.stock = stock
    self.unit = unit
    self.notes = notes
    self.photo = photo
    self.locationID = locationID
    self.lowStockThreshold = lowStockThreshold
    self.barcode = barcode
    self.createdAt = createdAt
    self.updatedAt = updatedAt ?? createdAt
  }

  /// Whether the quantity is at or below the low-stock threshold.
  public var isLowOnStock: Bool {
    guard let threshold = lowStockThreshold else { return false }
    return quantity <= threshold
  }

  /// Refuses an item a person could not have meant.
  ///
  /// - Throws: ``ModelError`` naming the field: an empty or over-long name, a negative or
  ///   absurd quantity or threshold, control characters in one-line texts.
  public func validate() throws(ModelError) {
    try Validate.name(name, of: "item")
    if let brand { try Validate.shortText(brand, field: "brand", of: "item") }
    try Validate.counter(stock, field: "quantity", of: "item")
    try Validate.shortText(unit, field: "unit", of: "item")
    try Validate.longText(notes, field: "notes", of: "item")
    if let lowStockThreshold {
      try Validate.quantity(lowStockThreshold, field: "low-stock threshold", of: "item")
    }
    if let barcode { try Validate.shortText(barcode, field: "barcode", of: "item") }
    try Validate.dates(created: createdAt, updated: updatedAt, of: "item")
  }
}

extension Item {
  /// Reads the typed view of an `item` record.
  ///
  /// - Throws: ``ModelError`` when the record is of another model.
  public init(record: Record) throws(ModelError) {
    guard record.schema == InventorySchemas.item else {
      throw ModelError("Record '\(record.id)' is a '\(record.model)', not an item")
    }
    var fields = FieldReader(record)
    self.init(
      id: record.id, name: fields.string(), brand: fields.optionalString(),
      stock: fields.counter(), unit: fields.string(), notes: fields.string(),
      photo: fields.optionalBlob(), locationID: fields.optionalReference(),
      lowStockThreshold: fields.optionalInteger(), barcode: fields.optionalString(),
      createdAt: fields.date(), updatedAt: fields.date())
  }

  /// The generic record, in ``InventorySchemas/item`` order.
  public var record: Record {
    try! Record(
      schema: InventorySchemas.item, id: id,
      values: [
        .string(name), .optional(brand, FieldValue.string), .counter(stock), .string(unit),
        .string(notes), .optional(photo, FieldValue.blob),
        .optional(locationID, FieldValue.reference),
        .optional(lowStockThreshold, FieldValue.integer), .optional(barcode, FieldValue.string),
        .date(createdAt), .date(updatedAt),
      ])
  }
}
