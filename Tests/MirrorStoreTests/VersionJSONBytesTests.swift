import JSONLines
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// A version's segment line and the mirror's `version` operation are written straight from
/// the version (``MirrorVersion/appendJSON(to:pending:)``, issue 26, item 5): the bytes must
/// be exactly those ``JSONWriter`` writes for the trees (``MirrorVersion/json``,
/// ``MirrorContent/operation(for:)``), which stay the reference.
@Suite struct VersionJSONBytesTests {
  static let schema = try! Schema(
    model: "version-bytes",
    fields: [
      FieldSpec("name", .string), FieldSpec("quantity", .integer),
      FieldSpec("note", .optional(.string)), FieldSpec("updatedAt", .date),
    ])

  static func randomVersion(_ random: inout SeededRandom) -> MirrorVersion {
    let id = RecordID.random(using: &random)
    let pieces = ["a", "\"", "\\", "\n", "\u{1}", "é", "🧴", " "]
    let text = (0..<Int(random.next() % 20)).map { _ in pieces[Int(random.next() % 8)] }.joined()
    let time = Timestamp(secondsSince1970: Double(random.next() % 4_000_000_000) / 8)!
    let record = try! Record(
      schema: schema, id: id,
      values: [
        .string(text), .integer(Int64(bitPattern: random.next())),
        random.next() % 2 == 0 ? .none : .string(text + "!"), .date(time),
      ])
    let snapshot: Snapshot =
      random.next() % 4 == 0
      ? .tombstone(
        Tombstone(
          model: schema.model, id: id, deletedAt: time, deletedHash: SnapshotHash(of: record)))
      : .record(record)
    let parents = Set(
      (0..<Int(random.next() % 4)).map { _ in
        VersionID(naming: SnapshotHash(digest: SHA256.hash(random.bytes(8))))
      })
    return MirrorVersion(
      snapshot: snapshot, parents: parents, generation: Int64(random.next() % 1_000_000) + 1,
      author: DeviceID(RecordID.random(using: &random).rawValue)!, authoredAt: time)
  }

  @Test(arguments: TestEnvironment.seeds(default: 4))
  func versionsAndTheirOperationsWriteTheTreesBytes(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    for _ in 0..<300 {
      let version = Self.randomVersion(&random)
      var line = [UInt8]()
      version.appendJSON(to: &line)
      #expect(line == JSONWriter.bytes(.object(version.json)), "seed \(seed)")
      for pending in [true, false] {
        let change = MirrorChange.addVersion(version, pending: pending)
        var operation = [UInt8]()
        MirrorContent.appendOperation(for: change, to: &operation)
        #expect(
          operation == JSONWriter.bytes(.object(MirrorContent.operation(for: change))),
          "seed \(seed)")
      }
    }
  }

  @Test func everyOtherOperationWritesItsTree() {
    let device = DeviceID("00000000-0000-4000-8000-0000000000a1")!
    let time = Timestamp(secondsSince1970: 1_764_441_600.5)!
    let ref = VersionRef(
      key: RecordKey(model: "item", id: RecordID(device.rawValue)!),
      id: VersionID(naming: SnapshotHash(digest: SHA256.hash([1]))))
    let changes: [MirrorChange] = [
      .markExported([ref], segment: "devices/x/000001.jsonl"),
      .markExporting(segment: "devices/x/000002.jsonl", export: "e\"1"),
      .markRead(segment: "devices/y/000001.jsonl"), .bindZone("zone"),
      .recordTransfer(.import, at: time),
      .notePeer(Peer(device: device, name: "Ana's \"phone\"", wroteAt: time)),
      .notePeer(Peer(device: device, name: nil, wroteAt: nil)),
    ]
    for change in changes {
      var operation = [UInt8]()
      MirrorContent.appendOperation(for: change, to: &operation)
      #expect(operation == JSONWriter.bytes(.object(MirrorContent.operation(for: change))))
    }
  }
}
