import StashModel

/// The records behind `Fixtures/snapshots/vectors.jsonl`: edge values a hash must survive.
///
/// Each vector is written with its schema, its snapshot JSON, its canonical bytes in hex and
/// its hash, so another implementation can check itself against the file alone.
enum SnapshotVectors {
  /// A schema with one field of every type, two optionals and a device-local field.
  static let everyType = try! Schema(
    model: "sample",
    fields: [
      FieldSpec("text", .string),
      FieldSpec("count", .integer),
      FieldSpec("ratio", .double),
      FieldSpec("when", .date),
      FieldSpec("flag", .bool),
      FieldSpec("photo", .optional(.blob)),
      FieldSpec("link", .optional(.reference(model: "sample"))),
      FieldSpec("maybe", .optional(.double)),
      FieldSpec("local", .optional(.string), deviceLocal: true),
    ])

  /// A schema with a counter, for the counter vectors.
  static let counted = try! Schema(
    model: "counted",
    fields: [
      FieldSpec("name", .string), FieldSpec("stock", .counter),
      FieldSpec("spare", .optional(.counter)), FieldSpec("updatedAt", .date),
    ], changeTime: "updatedAt")

  static let deviceA = DeviceID("00000000-0000-4000-8000-0000000000a1")!
  static let deviceB = DeviceID("00000000-0000-4000-8000-0000000000b1")!
  static let epoch = CounterEpoch("0e9c2a1b-7d3f-4c5e-9a8b-6f4e3d2c1b0a")!

  static func counted(_ stock: Counter, spare: Counter? = nil) -> Record {
    try! Record(
      schema: counted, id: id,
      values: [
        .string("Koleston 7/1"), .counter(stock), spare.map(FieldValue.counter) ?? .none,
        .date(Timestamp(secondsSince1970: 1_764_441_600)!),
      ])
  }

  static let id = RecordID("3f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f")!
  static let other = RecordID("00000000-0000-4000-8000-00000000beef")!
  static let photo = BlobRef(of: Array("not really a photo".utf8))

  static func sample(
    _ text: String = "plain", count: Int64 = 0, ratio: Double = 1.5,
    when: Double = 1_764_441_600, flag: Bool = false, photo: BlobRef? = nil,
    link: RecordID? = nil, maybe: Double? = nil, local: String? = nil
  ) -> Record {
    try! Record(
      schema: everyType, id: id,
      values: [
        .string(text), .integer(count), .double(ratio),
        .date(Timestamp(secondsSince1970: when)!), .bool(flag), photo.map(FieldValue.blob) ?? .none,
        link.map(FieldValue.reference) ?? .none, maybe.map(FieldValue.double) ?? .none,
        local.map(FieldValue.string) ?? .none,
      ])
  }

  static let time = Timestamp(secondsSince1970: 1_764_441_600.25)!

  /// The named vectors, in file order.
  static let all: [(name: String, snapshot: Snapshot)] = [
    ("plain", .record(sample())),
    ("negative zero", .record(sample(ratio: -0.0))),
    ("positive zero", .record(sample(ratio: 0.0))),
    ("smallest subnormal", .record(sample(ratio: .leastNonzeroMagnitude))),
    ("largest subnormal", .record(sample(ratio: Double.leastNormalMagnitude.nextDown))),
    ("greatest finite double", .record(sample(ratio: .greatestFiniteMagnitude))),
    ("most negative double", .record(sample(ratio: -.greatestFiniteMagnitude))),
    ("date with sub-microsecond fraction", .record(sample(when: 1_764_441_600.123_456_7))),
    ("date before 1970", .record(sample(when: -86_400.5))),
    ("date as negative zero", .record(sample(when: -0.0))),
    ("empty string", .record(sample(""))),
    ("emoji", .record(sample("Koleston 🧴 7/1 👩🏽‍🦱"))),
    ("precomposed e acute", .record(sample("caf\u{E9}"))),
    ("combining acute accent", .record(sample("cafe\u{301}"))),
    ("NUL inside text", .record(sample("a\u{0}b"))),
    ("control characters and quotes", .record(sample("tab\there \"quoted\" back\\slash\n"))),
    ("Int64 minimum", .record(sample(count: .min))),
    ("Int64 maximum", .record(sample(count: .max))),
    ("true flag", .record(sample(flag: true))),
    ("photo present", .record(sample(photo: photo))),
    ("reference present", .record(sample(link: other))),
    ("optional double present", .record(sample(maybe: 0.1))),
    ("device-local field set (same hash as plain)", .record(sample(local: "notification-42"))),
    (
      "item",
      .record(
        Item(
          id: id, name: "Koleston Perfect 7/1", brand: "Wella", quantity: 5, unit: "tube",
          notes: "Top shelf", photo: photo, locationID: other, lowStockThreshold: 2,
          barcode: "4064666318356", createdAt: time, updatedAt: time
        ).record)
    ),
    (
      "location",
      .record(
        Location(
          id: other, name: "Salon basement", latitude: 44.4268, longitude: 26.1025,
          radius: 50, createdAt: time
        ).record)
    ),
    (
      "reminder",
      .record(
        Reminder(
          id: id, locationID: other, itemID: nil, message: "Count the colour tubes",
          trigger: .leave, notificationIdentifier: "device-only", createdAt: time
        ).record)
    ),
    (
      "counter: first epoch, no moves (hashed as the plain integer)",
      .record(counted(Counter(base: 5)))
    ),
    (
      "counter: moves in the first epoch",
      .record(counted(Counter(base: 5, increments: [deviceB: 2], decrements: [deviceA: 1])))
    ),
    ("counter: a recount, no moves", .record(counted(.recount(to: 7, epoch: epoch)))),
    (
      "counter: moves after a recount, optional counter present",
      .record(
        counted(
          Counter(
            base: 7, epoch: epoch, increments: [deviceA: 3], decrements: [deviceB: 2, deviceA: 1]),
          spare: Counter(base: 0)))
    ),
    (
      "tombstone",
      .tombstone(
        Tombstone(
          model: "item", id: id, deletedAt: time,
          deletedHash: SnapshotHash(of: sample())))
    ),
  ]

  static var registry: SchemaRegistry {
    var registry = InventorySchemas.registry
    try! registry.register(everyType)
    try! registry.register(counted)
    return registry
  }
}
