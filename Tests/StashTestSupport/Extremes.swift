public import Foundation
public import StashModel

/// A record type holding every field type a `CodableRecord` supports, and optionals of them.
public struct Extremes: CodableRecord, Equatable {
  public static let model = "extremes"
  public static let declaration = RecordDeclaration(references: [
    "link": "extremes", "maybeLink": "fight",
  ])

  public enum Mood: String, Codable, CaseIterable, Sendable { case calm, stormy }
  public enum Level: Int16, Codable, CaseIterable, Sendable {
    case low = -1
    case high = 300
  }
  public struct Nested: Codable, Equatable, Sendable {
    public var name: String
    public var scores: [Int]
    public var ratio: Double?

    /// A nested value.
    public init(name: String, scores: [Int], ratio: Double? = nil) {
      self.name = name
      self.scores = scores
      self.ratio = ratio
    }
  }

  public var id: RecordID
  public var flag: Bool
  public var i8: Int8
  public var i16: Int16
  public var i32: Int32
  public var i64: Int64
  public var int: Int
  public var u8: UInt8
  public var u16: UInt16
  public var u32: UInt32
  public var u64: UInt64
  public var uint: UInt
  public var double: Double
  public var float: Float
  public var text: String
  public var uuid: UUID
  public var date: Date
  public var time: Timestamp
  public var data: Data
  public var mood: Mood
  public var level: Level
  public var stock: Counter
  public var link: RecordID
  public var nested: Nested
  public var maybeFlag: Bool?
  public var maybeI8: Int8?
  public var maybeU64: UInt64?
  public var maybeDouble: Double?
  public var maybeText: String?
  public var maybeUUID: UUID?
  public var maybeDate: Date?
  public var maybeData: Data?
  public var maybeMood: Mood?
  public var maybeLink: RecordID?
  public var maybeNested: Nested?
  public var maybeStock: Counter?

  /// Every value at its lowest (optionals absent).
  public static let lowest = Extremes(
    id: RecordID("3f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f")!, flag: false, i8: .min, i16: .min,
    i32: .min, i64: .min, int: .min, u8: 0, u16: 0, u32: 0, u64: 0, uint: 0, double: -0.0,
    float: -.greatestFiniteMagnitude, text: "",
    uuid: UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)),
    date: .distantPast, time: Timestamp(secondsSince1970: -.greatestFiniteMagnitude)!,
    data: Data(), mood: .calm, level: .low, stock: Counter(base: .min),
    link: RecordID("00000000-0000-4000-8000-000000000000")!, nested: Nested(name: "", scores: []))

  /// Every value at its highest (optionals present).
  public static let highest = Extremes(
    id: RecordID("ffffffff-ffff-4fff-bfff-ffffffffffff")!, flag: true, i8: .max, i16: .max,
    i32: .max, i64: .max, int: .max, u8: .max, u16: .max, u32: .max, u64: UInt64(Int64.max),
    uint: UInt(Int64.max), double: .greatestFiniteMagnitude, float: .greatestFiniteMagnitude,
    text: "日本 🧴 e\u{301} \u{0}\"\\",
    uuid: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
    date: .distantFuture, time: Timestamp(secondsSince1970: .greatestFiniteMagnitude)!,
    data: Data([0x00, 0xFF, 0xFE, 0x80, 0xC3]), mood: .stormy, level: .high,
    stock: Counter(
      base: 5, epoch: CounterEpoch(RecordID("11111111-1111-4111-8111-111111111111")!),
      increments: [DeviceID("22222222-2222-4222-8222-222222222222")!: 3]),
    link: RecordID("ffffffff-ffff-4fff-bfff-ffffffffffff")!,
    nested: Nested(name: "z/ä", scores: [.min, 0, .max], ratio: 0.1), maybeFlag: false,
    maybeI8: .min, maybeU64: UInt64(Int64.max), maybeDouble: .leastNonzeroMagnitude,
    maybeText: "", maybeUUID: UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")!,
    maybeDate: Date(timeIntervalSince1970: 0), maybeData: Data(), maybeMood: .calm,
    maybeLink: RecordID("00000000-0000-4000-8000-000000000000")!,
    maybeNested: Nested(name: "n", scores: [1], ratio: -0.0), maybeStock: Counter(base: 0))

  /// Subnormals, non-UTF-8 bytes and other odd values.
  public static let odd = Extremes(
    id: RecordID("7f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f")!, flag: true, i8: -1, i16: -1,
    i32: -1, i64: -1, int: -1, u8: 1, u16: 1, u32: 1, u64: 1, uint: 1,
    double: -.leastNonzeroMagnitude, float: .leastNonzeroMagnitude, text: "\n",
    uuid: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!,
    date: Date(timeIntervalSince1970: -1), time: Timestamp(secondsSince1970: 1e-300)!,
    data: Data([0xC0, 0x80, 0xED, 0xA0, 0x80]), mood: .stormy, level: .low,
    stock: Counter(base: .max), link: RecordID("7f2b8c1e-9d4a-4b7e-8c2f-1a2b3c4d5e6f")!,
    nested: Nested(name: "\u{1F}", scores: [], ratio: nil), maybeData: Data([0xFF]))

  public static let all = [lowest, highest, odd]

  /// Equal field by field, doubles by bit pattern (so `-0.0` is not `0.0`).
  public func isIdentical(to other: Extremes) throws -> Bool {
    try self == other && makeRecord() == other.makeRecord()
      && double.bitPattern == other.double.bitPattern && float.bitPattern == other.float.bitPattern
  }
}
