import Foundation
import JSONLines
import StashModel
import StashTestSupport
import Testing

@Suite struct RecordRoundTripTests {
  /// A random value of `type`, with edge cases more often than chance would give them.
  static func randomValue(_ type: FieldType, _ random: inout SeededRandom) -> FieldValue {
    switch type {
    case .optional(let wrapped):
      return Bool.random(using: &random) ? .none : randomValue(wrapped, &random)
    case .string:
      let pieces = ["", "a", "🧴", "e\u{301}", "\u{0}", "\"", "\\", "\n", "ß", "日本", "\u{1F}"]
      return .string(
        (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)!
        }.joined())
    case .integer:
      let edges: [Int64] = [0, -1, 1, .min, .max]
      return .integer(
        Bool.random(using: &random)
          ? edges.randomElement(using: &random)! : Int64(bitPattern: random.next()))
    case .double:
      return .double(randomDouble(&random))
    case .date:
      return .date(Timestamp(secondsSince1970: randomDouble(&random))!)
    case .bool:
      return .bool(Bool.random(using: &random))
    case .blob:
      return .blob(BlobRef(of: random.bytes(Int.random(in: 0...64, using: &random))))
    case .bytes:
      return .bytes(random.bytes(Int.random(in: 0...64, using: &random)))
    case .reference:
      return .reference(RecordID.random(using: &random))
    case .counter:
      return .counter(randomCounter(&random))
    }
  }

  /// A counter: often the plain first epoch, else an epoch with a few devices' tallies.
  static func randomCounter(_ random: inout SeededRandom) -> Counter {
    let base = Int64.random(in: -5...1_000_000, using: &random)
    guard Bool.random(using: &random) else { return Counter(base: base) }
    func tallies() -> [DeviceID: Int64] {
      var found = [DeviceID: Int64]()
      for _ in 0..<Int.random(in: 0...3, using: &random) {
        found[DeviceID(RecordID.random(using: &random).rawValue)!] = Int64.random(
          in: 1...(1 << 40), using: &random)
      }
      return found
    }
    let epoch = Bool.random(using: &random) ? CounterEpoch(RecordID.random(using: &random)) : nil
    return Counter(base: base, epoch: epoch, increments: tallies(), decrements: tallies())
  }

  static func randomDouble(_ random: inout SeededRandom) -> Double {
    let edges: [Double] = [
      0, -0.0, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .greatestFiniteMagnitude, 1e-7, 0.1,
      1_764_441_600.123_456_7,
    ]
    if Bool.random(using: &random) { return edges.randomElement(using: &random)! }
    while true {
      let value = Double(bitPattern: random.next())
      if value.isFinite { return value }
    }
  }

  @Test func anyRecordSurvivesAJSONLinesWriteAndReadWithTheSameHash() throws {
    let seed: UInt64 = 0x5EED_0001
    var random = SeededRandom(seed: seed)
    let schemas = SnapshotVectors.registry
    var written = [(hash: SnapshotHash, bits: [UInt64])]()
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("round.store").path
      let header = LogHeader(
        format: "stash.test", version: 1, storeID: .make(), deviceID: .make(),
        created: Timestamp(secondsSince1970: 0)!)
      let log = try Log.create(at: path, header: header)
      for _ in 0..<300 {
        let schema = [SnapshotVectors.everyType, InventorySchemas.item, InventorySchemas.reminder]
          .randomElement(using: &random)!
        let values = schema.fields.map { Self.randomValue($0.type, &random) }
        let record = try Record(schema: schema, id: .random(using: &random), values: values)
        written.append((record.snapshotHash, record.values.compactMap(Self.bits)))
        try log.append([Snapshot.record(record).json])
      }
      var read = [(hash: SnapshotHash, bits: [UInt64])]()
      _ = try Log.open(at: path, format: "stash.test", supportedVersion: 1, recoverTail: false) {
        transaction in
        for operation in transaction.operations {
          let snapshot = try! Snapshot(json: operation.object, schemas: schemas)
          read.append((snapshot.hash, snapshot.record!.values.compactMap(Self.bits)))
        }
      }
      #expect(read.count == written.count, "seed \(seed)")
      for (index, (before, after)) in zip(written, read).enumerated() {
        #expect(before.hash == after.hash, "record \(index), seed \(seed)")
        #expect(
          before.bits == after.bits, "record \(index): doubles and dates bit for bit, seed \(seed)")
      }
    }
  }

  /// The bit pattern of a double or date value, to compare bit for bit.
  static func bits(_ value: FieldValue) -> UInt64? {
    switch value {
    case .double(let number): number.bitPattern
    case .date(let time): time.secondsSince1970.bitPattern
    default: nil
    }
  }
}
