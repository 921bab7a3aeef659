import StashBase
import StashModel
import StashTestSupport
import Testing

/// ``CanonicalEncoding`` writes whole integers and the schema's precomputed bytes (issue 26,
/// item 5); the byte-at-a-time encoder it replaced is kept here as the reference, and the two
/// must agree on every vector and on seeded random records and tombstones, device-local
/// fields and counters with epochs and moves included.
@Suite struct CanonicalEncodingReferenceTests {
  /// The encoder as it was before: one byte appended at a time, every string measured.
  enum Reference {
    static func bytes(of record: Record) -> [UInt8] {
      var out: [UInt8] = [0x01, UInt8(ascii: "R")]
      string(record.schema.model, to: &out)
      string(record.id.rawValue, to: &out)
      let fields = record.schema.fields
      uint32(UInt32(fields.reduce(0) { $0 + ($1.isDeviceLocal ? 0 : 1) }), to: &out)
      for (field, value) in zip(fields, record.values) where !field.isDeviceLocal {
        string(field.name, to: &out)
        self.value(value, of: field.type, to: &out)
      }
      return out
    }

    static func bytes(of tombstone: Tombstone) -> [UInt8] {
      var out: [UInt8] = [0x01, UInt8(ascii: "T")]
      string(tombstone.model, to: &out)
      string(tombstone.id.rawValue, to: &out)
      uint64(tombstone.deletedAt.secondsSince1970.bitPattern, to: &out)
      out += tombstone.deletedHash.digest.bytes
      return out
    }

    static func value(_ value: FieldValue, of type: FieldType, to out: inout [UInt8]) {
      if case .optional(let wrapped) = type {
        if case .none = value {
          out.append(0x00)
        } else {
          out.append(0x01)
          self.value(value, of: wrapped, to: &out)
        }
        return
      }
      switch value {
      case .string(let text):
        out.append(UInt8(ascii: "s"))
        string(text, to: &out)
      case .integer(let number):
        out.append(UInt8(ascii: "i"))
        uint64(UInt64(bitPattern: number), to: &out)
      case .double(let number):
        out.append(UInt8(ascii: "d"))
        uint64(number.bitPattern, to: &out)
      case .date(let time):
        out.append(UInt8(ascii: "t"))
        uint64(time.secondsSince1970.bitPattern, to: &out)
      case .bool(let flag):
        out += [UInt8(ascii: "b"), flag ? 0x01 : 0x00]
      case .blob(let blob):
        out.append(UInt8(ascii: "h"))
        out += blob.digest.bytes
        uint64(UInt64(bitPattern: blob.size), to: &out)
      case .reference(let id):
        out.append(UInt8(ascii: "r"))
        string(id.rawValue, to: &out)
      case .counter(let counter):
        guard !counter.isPlain else {
          out.append(UInt8(ascii: "i"))
          uint64(UInt64(bitPattern: counter.base), to: &out)
          return
        }
        out.append(UInt8(ascii: "c"))
        if let epoch = counter.epoch {
          out.append(0x01)
          string(epoch.rawValue, to: &out)
        } else {
          out.append(0x00)
        }
        uint64(UInt64(bitPattern: counter.base), to: &out)
        for tallies in [counter.increments, counter.decrements] {
          uint32(UInt32(tallies.count), to: &out)
          for (device, units) in tallies.sorted(by: { $0.key < $1.key }) {
            string(device.rawValue, to: &out)
            uint64(UInt64(bitPattern: units), to: &out)
          }
        }
      case .bytes(let bytes):
        out.append(UInt8(ascii: "x"))
        uint32(UInt32(bytes.count), to: &out)
        out += bytes
      case .none:
        Issue.record("a non-optional field holds no value")
      }
    }

    static func string(_ text: String, to out: inout [UInt8]) {
      uint32(UInt32(text.utf8.count), to: &out)
      out += Array(text.utf8)
    }

    static func uint32(_ number: UInt32, to out: inout [UInt8]) {
      for shift in stride(from: 24, through: 0, by: -8) {
        out.append(UInt8(truncatingIfNeeded: number >> UInt32(shift)))
      }
    }

    static func uint64(_ number: UInt64, to out: inout [UInt8]) {
      for shift in stride(from: 56, through: 0, by: -8) {
        out.append(UInt8(truncatingIfNeeded: number >> UInt64(shift)))
      }
    }
  }

  @Test func everyVectorEncodesAsTheReferenceDoes() {
    for (name, snapshot) in SnapshotVectors.all {
      switch snapshot {
      case .record(let record):
        #expect(CanonicalEncoding.bytes(of: record) == Reference.bytes(of: record), "\(name)")
      case .tombstone(let tombstone):
        #expect(
          CanonicalEncoding.bytes(of: tombstone) == Reference.bytes(of: tombstone), "\(name)")
      }
    }
  }

  /// Every field type, with device-local fields between synced ones (left out of the count
  /// and the bytes) and a model name that is not ASCII.
  static let schema = try! Schema(
    model: "canonical-réf",
    fields: [
      FieldSpec("note", .optional(.string), deviceLocal: true),
      FieldSpec("text", .string), FieldSpec("count", .integer), FieldSpec("ratio", .double),
      FieldSpec("when", .date), FieldSpec("flag", .bool), FieldSpec("photo", .optional(.blob)),
      FieldSpec("link", .optional(.reference(model: "canonical-réf"))),
      FieldSpec("alarm", .optional(.date), deviceLocal: true),
      FieldSpec("raw", .bytes), FieldSpec("stock", .counter),
      FieldSpec("quoted \"name\" é", .optional(.string)),
    ])

  static func randomCounter(_ random: inout SeededRandom) -> Counter {
    let base = Int64(bitPattern: random.next())
    guard random.next() % 3 != 0 else { return Counter(base: base) }
    func tallies(_ random: inout SeededRandom) -> [DeviceID: Int64] {
      var tallies = [DeviceID: Int64]()
      for _ in 0..<Int(random.next() % 4) {
        tallies[DeviceID(RecordID.random(using: &random).rawValue)!] = Int64(random.next() % 99 + 1)
      }
      return tallies
    }
    let epoch = random.next() % 2 == 0 ? nil : CounterEpoch(RecordID.random(using: &random))
    return Counter(
      base: base, epoch: epoch, increments: tallies(&random), decrements: tallies(&random))
  }

  static func randomRecord(_ random: inout SeededRandom) -> Record {
    let text = SnapshotJSONBytesTests.randomText
    let double = Double(bitPattern: random.next())
    return try! Record(
      schema: schema, id: RecordID.random(using: &random),
      values: [
        random.next() % 2 == 0 ? .none : .string(text(&random)),
        .string(text(&random)), .integer(Int64(bitPattern: random.next())),
        .double(double.isFinite ? double : -0.0),
        .date(Timestamp(secondsSince1970: Double(Int64(random.next() % 4_000_000_000)) / 7)!),
        .bool(random.next() % 2 == 0),
        random.next() % 2 == 0 ? .none : .blob(BlobRef(of: random.bytes(5))),
        random.next() % 2 == 0 ? .none : .reference(RecordID.random(using: &random)),
        random.next() % 2 == 0 ? .none : .date(Timestamp(secondsSince1970: 12.5)!),
        .bytes(random.bytes(Int(random.next() % 70))), .counter(randomCounter(&random)),
        random.next() % 2 == 0 ? .none : .string(text(&random)),
      ])
  }

  @Test(arguments: TestEnvironment.seeds(default: 4))
  func randomRecordsAndTombstonesEncodeAsTheReferenceDoes(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    for _ in 0..<500 {
      let record = Self.randomRecord(&random)
      let bytes = CanonicalEncoding.bytes(of: record)
      #expect(bytes == Reference.bytes(of: record), "seed \(seed)")
      #expect(record.snapshotHash == SnapshotHash(digest: SHA256.hash(bytes)))
      let tombstone = Tombstone(
        model: record.model, id: record.id,
        deletedAt: Timestamp(secondsSince1970: Double(random.next() % 1_000_000) / 3)!,
        deletedHash: record.snapshotHash)
      #expect(CanonicalEncoding.bytes(of: tombstone) == Reference.bytes(of: tombstone))
    }
  }
}
