import Foundation
import StashBase
import StashModel
import StashTestSupport
import Testing

/// `Fixtures/snapshots/bytes-vectors.json`: the bytes field type's canonical encoding, computed
/// in Python by `bytes_vector.py` from `Fixtures/README.md` alone.
@Suite struct BytesVectorTests {
  @Test func theBytesVectorReadsBackToItsCanonicalBytesHashAndLine() throws {
    guard
      case .array(let vectors) = try JSONParser.parse(
        Fixtures.bytes("snapshots/bytes-vectors.json"))
    else {
      Issue.record("not an array")
      return
    }
    #expect(vectors.count == 1)
    for case .object(let vector) in vectors {
      guard case .array(let specs)? = vector["schema"],
        case .object(let snapshot)? = vector["snapshot"],
        case .object(let fields)? = snapshot["fields"], case .string(let id)? = snapshot["id"],
        case .string(let canonical)? = vector["canonical"], case .string(let hash)? = vector["hash"]
      else {
        Issue.record("malformed vector")
        continue
      }
      let types: [String: FieldType] = [
        "bytes": .bytes, "optional(bytes)": .optional(.bytes), "string": .string,
      ]
      let schema = try Schema(
        model: "sample",
        fields: specs.compactMap { spec in
          guard case .object(let spec) = spec, case .string(let name)? = spec["name"],
            case .string(let type)? = spec["type"], let fieldType = types[type]
          else { return nil }
          return FieldSpec(name, fieldType)
        })
      #expect(schema.fields.count == specs.count)
      let record = try Record(schema: schema, id: try #require(RecordID(id)), fieldsJSON: fields)
      #expect(record[field: "data"] == .bytes([0x00, 0xFF, 0xFE, 0x80, 0x41, 0xC3]))
      #expect(
        CanonicalEncoding.bytes(of: record).map { String(format: "%02x", $0) }.joined()
          == canonical)
      #expect(record.snapshotHash.hex == hash)
      #expect(record.fieldsJSON() == fields, "the store line writes the same base64 text")
    }
  }
}
