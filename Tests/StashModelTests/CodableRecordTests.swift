import Foundation
import StashBase
import StashModel
import StashTestSupport
import Testing

/// A String-backed enum that cannot make a placeholder (not `CaseIterable`).
enum Shade: String, Codable { case light, dark }

@Suite struct CodableRecordTests {
  @Test func theSchemaComesFromThePropertiesInDeclarationOrder() throws {
    let schema = try Extremes.derivedSchema()
    #expect(schema.model == "extremes")
    #expect(schema.fields.first?.name == "flag", "the key 'id' is the record's id, not a field")
    #expect(schema.fields.count == 35)
    let types = Dictionary(uniqueKeysWithValues: schema.fields.map { ($0.name, $0.type) })
    #expect(types["i8"] == .integer && types["u64"] == .integer && types["float"] == .double)
    #expect(types["uuid"] == .string && types["mood"] == .string && types["level"] == .integer)
    #expect(types["date"] == .date && types["time"] == .date && types["data"] == .bytes)
    #expect(types["stock"] == .counter && types["nested"] == .string)
    #expect(types["link"] == .reference(model: "extremes"))
    #expect(types["maybeLink"] == .optional(.reference(model: "fight")))
    #expect(types["maybeData"] == .optional(.bytes) && types["maybeStock"] == .optional(.counter))
    #expect(Extremes.schema === schema, "derived once and shared")
  }

  @Test(arguments: Extremes.all.indices)
  func everyFieldTypeRoundTripsAtItsExtremesThroughAStoreLine(index: Int) throws {
    let value = Extremes.all[index]
    let record = try value.makeRecord()
    #expect(record.id == value.id)
    let line = JSONWriter.bytes(.object(record.fieldsJSON()))
    guard case .object(let fields) = try JSONParser.parse(line) else {
      Issue.record("not an object")
      return
    }
    let read = try Record(schema: Extremes.schema, id: record.id, fieldsJSON: fields)
    #expect(read.snapshotHash == record.snapshotHash)
    #expect(try Extremes(record: read).isIdentical(to: value))
  }

  @Test func aUInt64AboveInt64MaxIsRefusedNamingTheField() throws {
    var value = Extremes.lowest
    value.u64 = .max
    let error = #expect(throws: ModelError.self) { try value.makeRecord() }
    #expect(error?.message.contains("'u64'") == true)
    value = Extremes.lowest
    value.maybeU64 = UInt64(Int64.max) + 1
    #expect(throws: ModelError.self) { try value.makeRecord() }
    for (field, change) in [
      ("double", { (value: inout Extremes) in value.double = .nan }),
      ("maybeDouble", { $0.maybeDouble = -.infinity }),
      ("date", { $0.date = Date(timeIntervalSinceReferenceDate: .infinity) }),
      ("float", { $0.float = .infinity }),
    ] {
      value = Extremes.highest
      change(&value)
      let error = #expect(throws: ModelError.self) { try value.makeRecord() }
      #expect(error?.message.contains("'\(field)'") == true, "\(field)")
    }
  }

  @Test func aValueThatDoesNotFitItsPropertyIsATypedErrorNotATrap() throws {
    var record = try Extremes.lowest.makeRecord()
    try record.set("i8", to: .integer(300))
    let error = #expect(throws: ModelError.self) { try Extremes(record: record) }
    #expect(error?.message.contains("'i8'") == true)
    #expect(throws: ModelError.self, "refused on arrival too") {
      try Extremes.schema.validate(record)
    }
    for (field, value) in [
      ("u8", FieldValue.integer(-1)), ("u32", .integer(1 << 32)), ("mood", .string("sunny")),
      ("level", .integer(7)), ("uuid", .string("not a uuid")), ("float", .double(0.1)),
      ("nested", .string("{\"name\": 5}")), ("i16", .integer(Int64(Int16.max) + 1)),
    ] {
      var bad = try Extremes.highest.makeRecord()
      try bad.set(field, to: value)
      let error = #expect(throws: ModelError.self) { try Extremes(record: bad) }
      #expect(error?.message.contains("'\(field)'") == true, "\(field)")
    }
  }

  @Test func aNestedValueIsStoredAsCanonicalJSONText() throws {
    let record = try Extremes.highest.makeRecord()
    #expect(
      record[field: "nested"]
        == .string(
          "{\"name\":\"z/ä\",\"ratio\":0.1,\"scores\":[-9223372036854775808,0,9223372036854775807]}"
        ))
    #expect(record[field: "uuid"] == .string("e621e1f8-c36c-495a-93fc-0c247a3e6e5f"))
    #expect(record[field: "data"] == .bytes([0x00, 0xFF, 0xFE, 0x80, 0xC3]))
  }

  @Test func aDeclarationThatCannotBeStoredIsAnError() {
    struct Unnamed: CodableRecord {
      static let model = "unnamed"
      var id: RecordID
      var other: RecordID
    }
    struct Misnamed: CodableRecord {
      static let model = "misnamed"
      static let declaration = RecordDeclaration(references: ["othr": "x"])
      var id: RecordID
      var other: RecordID
    }
    struct Shaded: CodableRecord {
      static let model = "shaded"
      var id: RecordID
      var shade: Shade
    }
    struct BadChangeTime: CodableRecord {
      static let model = "bad"
      static let declaration = RecordDeclaration(changeTime: "name")
      var id: RecordID
      var name: String
    }
    #expect(throws: ModelError.self) { try Unnamed.derivedSchema() }
    #expect(throws: ModelError.self) { try Misnamed.derivedSchema() }
    let error = #expect(throws: ModelError.self) { try Shaded.derivedSchema() }
    #expect(error?.message.contains("CaseIterable") == true)
    #expect(throws: ModelError.self) { try BadChangeTime.derivedSchema() }
  }

  @Test func anOptionalEnumNeedsNoPlaceholderAndAComputedIDIsNoField() throws {
    struct Tag: CodableRecord, Equatable {
      static let model = "tag"
      static let declaration = RecordDeclaration(lookup: ["name"], candidateKey: "name")
      var id: RecordID { .derived(model: "tag", naturalKey: name) }
      var name: String
      var shade: Shade?
    }
    #expect(try Tag.derivedSchema().fields.map(\.name) == ["name", "shade"])
    let tag = Tag(name: "red", shade: .dark)
    #expect(try Tag(record: tag.makeRecord()) == tag)
  }

  @Test func bytesInAStoreLineAreOneBase64TextEach() throws {
    let schema = try Schema(model: "b", fields: [FieldSpec("data", .bytes)])
    #expect(FieldValue.bytes([0xFF]).json == .string("/w=="))
    for refused in ["/w", "/x==", " /w==", "/w==\n", "ÿ", "@@@@"] {
      #expect(throws: ModelError.self, "\(refused)") {
        try FieldValue(json: .string(refused), type: .bytes, field: "data")
      }
    }
    let record = try Record(schema: schema, id: .make(), values: [.bytes([])])
    #expect(record.fieldsJSON()["data"] == .string(""))
  }
}
