import Foundation
import StashBase
import StashModel
import StashTestSupport
import Testing

@Suite struct CanonicalEncodingTests {
  static let fixture = "snapshots/vectors.jsonl"

  /// One line of the golden file.
  struct Vector: Sendable, CustomStringConvertible {
    let name: String
    let line: JSONObject
    var description: String { name }
  }

  static func loadVectors() -> [Vector] {
    guard let bytes = try? Fixtures.bytes(fixture) else { return [] }
    return bytes.split(separator: UInt8(ascii: "\n")).compactMap { line in
      guard case .object(let object)? = try? JSONParser.parse(Array(line)),
        case .string(let name)? = object["name"]
      else { return nil }
      return Vector(name: name, line: object)
    }
  }

  @Test func goldenFileHoldsEveryVectorInOrder() throws {
    let lines = SnapshotVectors.all.map { vector -> [UInt8] in
      let snapshot = vector.snapshot
      let bytes: [UInt8]
      switch snapshot {
      case .record(let record): bytes = CanonicalEncoding.bytes(of: record)
      case .tombstone(let tombstone): bytes = CanonicalEncoding.bytes(of: tombstone)
      }
      var schema: JSONValue = .null
      if case .record(let record) = snapshot { schema = record.schema.json }
      let object: JSONObject = [
        "name": .string(vector.name),
        "schema": schema,
        "snapshot": .object(snapshot.json),
        "canonical": .string(bytes.map { String(format: "%02x", $0) }.joined()),
        "hash": .string(snapshot.hash.hex),
      ]
      return JSONWriter.bytes(.object(object)) + [UInt8(ascii: "\n")]
    }
    let expected = lines.flatMap { $0 }
    if Fixtures.isRecording {
      try Data(expected).write(to: Fixtures.url(Self.fixture))
      Issue.record(
        "Recorded \(Self.fixture); review the diff and run again without STASH_RECORD_FIXTURES")
      return
    }
    let actual = try Fixtures.bytes(Self.fixture)
    #expect(actual == expected, "run with STASH_RECORD_FIXTURES=1 to see the difference as a diff")
  }

  @Test(arguments: loadVectors())
  func vectorReadsBackToItsCanonicalBytesAndHash(vector: Vector) throws {
    guard case .object(let snapshotJSON)? = vector.line["snapshot"],
      case .string(let canonical)? = vector.line["canonical"],
      case .string(let hash)? = vector.line["hash"]
    else {
      Issue.record("malformed vector")
      return
    }
    let snapshot = try Snapshot(json: snapshotJSON, schemas: SnapshotVectors.registry)
    let bytes: [UInt8]
    switch snapshot {
    case .record(let record): bytes = CanonicalEncoding.bytes(of: record)
    case .tombstone(let tombstone): bytes = CanonicalEncoding.bytes(of: tombstone)
    }
    #expect(bytes.map { String(format: "%02x", $0) }.joined() == canonical)
    #expect(snapshot.hash.hex == hash)
    #expect(SHA256.hash(bytes).hex == hash)
  }

  @Test func deviceLocalFieldsAreNeitherHashedNorCopied() throws {
    let plain = SnapshotVectors.sample()
    let local = SnapshotVectors.sample(local: "notification-42")
    #expect(plain.snapshotHash == local.snapshotHash)
    let copied = local.copied(keepingDeviceLocalFieldsOf: nil)
    #expect(copied[field: "local"] == FieldValue.none)
    let kept = plain.copied(keepingDeviceLocalFieldsOf: local)
    #expect(kept[field: "local"] == .string("notification-42"))
  }

  @Test func everyDefiningFieldChangesTheHash() throws {
    let base = SnapshotVectors.sample()
    let variants = [
      SnapshotVectors.sample("plain "), SnapshotVectors.sample(count: 1),
      SnapshotVectors.sample(ratio: 1.5000000000000002),
      SnapshotVectors.sample(when: 1_764_441_600.000_001),
      SnapshotVectors.sample(flag: true), SnapshotVectors.sample(photo: SnapshotVectors.photo),
      SnapshotVectors.sample(link: SnapshotVectors.other), SnapshotVectors.sample(maybe: 0),
      SnapshotVectors.sample(ratio: -0.0),
    ]
    let hashes = Set(variants.map(\.snapshotHash))
    #expect(hashes.count == variants.count)
    #expect(!hashes.contains(base.snapshotHash))
  }

  @Test func theSameTextInOtherUnicodeFormsHashesDifferently() {
    // Strings are hashed as the UTF-8 bytes stored, never normalized: what the person typed.
    #expect(
      SnapshotVectors.sample("caf\u{E9}").snapshotHash
        != SnapshotVectors.sample("cafe\u{301}").snapshotHash)
  }
}

extension Schema {
  /// The schema as the golden file writes it: `[{"name", "type", "deviceLocal"}]`.
  var json: JSONValue {
    .array(
      fields.map { field in
        .object([
          "name": .string(field.name), "type": .string(field.type.description),
          "deviceLocal": .bool(field.isDeviceLocal),
        ])
      })
  }
}
