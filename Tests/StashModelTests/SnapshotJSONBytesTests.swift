import StashBase
import StashModel
import StashTestSupport
import Testing

/// ``Snapshot/appendJSON(to:)`` writes a snapshot's JSON without building its tree (issue 26,
/// item 5): its bytes must be exactly those ``JSONWriter`` writes for ``Snapshot/json``, which
/// stays the reference, for every vector and for seeded random records.
@Suite struct SnapshotJSONBytesTests {
  static func direct(_ snapshot: Snapshot) -> [UInt8] {
    var bytes = [UInt8]()
    snapshot.appendJSON(to: &bytes)
    return bytes
  }

  @Test func everyVectorWritesTheTreesBytes() {
    for (name, snapshot) in SnapshotVectors.all {
      #expect(
        Self.direct(snapshot) == JSONWriter.bytes(.object(snapshot.json)),
        "\(name): \(String(decoding: Self.direct(snapshot), as: UTF8.self))")
      guard case .record(let record) = snapshot else { continue }
      var fields = [UInt8]()
      record.appendFieldsJSON(to: &fields)
      #expect(fields == JSONWriter.bytes(.object(record.fieldsJSON())), "\(name)")
    }
  }

  /// A schema with every field type, optional ones, and field names that need escapes.
  static let schema = try! Schema(
    model: "bytes-census",
    fields: [
      FieldSpec("text", .string), FieldSpec("count", .integer), FieldSpec("ratio", .double),
      FieldSpec("when", .date), FieldSpec("flag", .bool), FieldSpec("photo", .optional(.blob)),
      FieldSpec("link", .optional(.reference(model: "bytes-census"))),
      FieldSpec("raw", .bytes), FieldSpec("stock", .counter),
      FieldSpec("quoted \"name\"\n", .optional(.string)),
    ])

  static func randomText(_ random: inout SeededRandom) -> String {
    let pieces = [
      "a", "Z", "\"", "\\", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "🧴", "/", " ",
    ]
    return (0..<Int(random.next() % 40)).map { _ in pieces[Int(random.next() % 13)] }.joined()
  }

  static func randomRecord(_ random: inout SeededRandom) -> Record {
    let id = RecordID.random(using: &random)
    let device = DeviceID(RecordID.random(using: &random).rawValue)!
    let counter =
      random.next() % 2 == 0
      ? Counter(base: Int64(bitPattern: random.next()))
      : Counter(base: 3, increments: [device: Int64(random.next() % 9 + 1)], decrements: [:])
    let double = Double(bitPattern: random.next())
    return try! Record(
      schema: schema, id: id,
      values: [
        .string(randomText(&random)), .integer(Int64(bitPattern: random.next())),
        .double(double.isFinite ? double : 0.1),
        .date(Timestamp(secondsSince1970: Double(Int64(random.next() % 4_000_000_000)) / 7)!),
        .bool(random.next() % 2 == 0),
        random.next() % 2 == 0 ? .none : .blob(BlobRef(of: random.bytes(5))),
        random.next() % 2 == 0 ? .none : .reference(RecordID.random(using: &random)),
        .bytes(random.bytes(Int(random.next() % 7))), .counter(counter),
        random.next() % 2 == 0 ? .none : .string(randomText(&random)),
      ])
  }

  @Test(arguments: TestEnvironment.seeds(default: 4))
  func randomRecordsWriteTheTreesBytes(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    for _ in 0..<300 {
      let record = Self.randomRecord(&random)
      let snapshot = Snapshot.record(record)
      #expect(
        Self.direct(snapshot) == JSONWriter.bytes(.object(snapshot.json)), "seed \(seed)")
      var id = [UInt8]()
      record.id.appendJSONString(to: &id)
      #expect(id == JSONWriter.bytes(.string(record.id.rawValue)))
    }
  }

  /// ``RecordID/rawValue``, ``RecordID/utf8Bytes`` and ``RecordID/appendJSONString(to:)``
  /// write the text an id was parsed from, for every digit in every position.
  @Test(arguments: TestEnvironment.seeds(default: 4))
  func idsWriteTheTextTheyWereReadFrom(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let digits = Array("0123456789abcdef")
    for round in 0..<2000 {
      let text = String(
        (0..<36).map { position -> Character in
          if [8, 13, 18, 23].contains(position) { return "-" }
          return digits[round < 16 ? round : Int(random.next() % 16)]
        })
      let id = RecordID(text)!
      #expect(id.rawValue == text, "seed \(seed)")
      #expect(id.utf8Bytes == Array(text.utf8))
      var quoted = [UInt8]()
      id.appendJSONString(to: &quoted)
      #expect(quoted == Array("\"\(text)\"".utf8))
    }
  }
}
