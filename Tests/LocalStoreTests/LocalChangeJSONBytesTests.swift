import LocalStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// A row's and a checkpoint's lines are written straight from their values
/// (`LocalContent.appendOperation(for:to:)`, issue 26, item 5): the bytes must be exactly those
/// ``JSONWriter`` writes for the tree (``LocalContent/operation(for:)``), the reference.
@Suite struct LocalChangeJSONBytesTests {
  static let schema = try! Schema(
    model: "local-bytes",
    fields: [
      FieldSpec("name", .string), FieldSpec("quantity", .integer),
      FieldSpec("note", .optional(.string)), FieldSpec("updatedAt", .date),
    ])

  static func direct(_ change: LocalChange) -> [UInt8] {
    var bytes = [UInt8]()
    LocalContent.appendOperation(for: change, to: &bytes)
    return bytes
  }

  static func tree(_ change: LocalChange) -> [UInt8] {
    JSONWriter.bytes(.object(LocalContent.operation(for: change)))
  }

  @Test(arguments: TestEnvironment.seeds(default: 4))
  func rowsAndCheckpointsWriteTheTreesBytes(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let pieces = ["a", "\"", "\\", "\n", "\u{1}", "é", "🧴", " "]
    for _ in 0..<300 {
      let text = (0..<Int(random.next() % 20)).map { _ in pieces[Int(random.next() % 8)] }
        .joined()
      let record = try! Record(
        schema: Self.schema, id: RecordID.random(using: &random),
        values: [
          .string(text), .integer(Int64(bitPattern: random.next())),
          random.next() % 2 == 0 ? .none : .string(text + "!"),
          .date(Timestamp(secondsSince1970: Double(random.next() % 4_000_000_000) / 8)!),
        ])
      let hash = SnapshotHash(of: record)
      let version = VersionID(naming: SnapshotHash(digest: SHA256.hash(random.bytes(8))))
      let changes: [LocalChange] = [
        .putRow(RowID(Int64(random.next() % 1_000_000)), record, hash),
        .putCheckpoint(record.key, Checkpoint(hash: hash, isTombstone: false)),
        .putCheckpoint(record.key, Checkpoint(hash: hash, isTombstone: true, version: version)),
        .removeRow(RowID(7)), .removeCheckpoint(record.key), .bindCheckpoints(nil),
      ]
      for change in changes {
        #expect(Self.direct(change) == Self.tree(change), "seed \(seed): \(change)")
      }
    }
  }
}
