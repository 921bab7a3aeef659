public import Foundation
public import JSONLines
import StashBase
public import StashModel

/// Records and damaged lines for the tests of the direct readers (issue 26, item 5), which
/// read a store's or a segment's hot lines straight from their bytes and must either give up
/// (`nil`) or give exactly what the JSON tree gives.
public enum DirectReadLines {
  /// A schema with every field type, optional ones, and a field name that needs escapes.
  public static let schema = try! Schema(
    model: "direct-read",
    fields: [
      FieldSpec("text", .string), FieldSpec("count", .integer), FieldSpec("ratio", .double),
      FieldSpec("when", .date), FieldSpec("flag", .bool), FieldSpec("photo", .optional(.blob)),
      FieldSpec("link", .optional(.reference(model: "direct-read"))),
      FieldSpec("raw", .bytes), FieldSpec("stock", .counter),
      FieldSpec("quoted \"name\"\n", .optional(.string)),
    ])

  /// A registry with ``schema``.
  public static var registry: SchemaRegistry { try! SchemaRegistry([schema]) }

  /// Text with escapes, control characters, multibyte characters, and sometimes long.
  public static func randomText(_ random: inout SeededRandom) -> String {
    let pieces = [
      "a", "Z", "\"", "\\", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "🧴", "/", " ",
      "\u{2028}", "0123456789",
    ]
    let count = random.next() % 16 == 0 ? 400 : Int(random.next() % 40)
    return (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
  }

  /// A double as the writer writes them: integral, fractional, tiny, huge, negative, zero.
  public static func randomDouble(_ random: inout SeededRandom) -> Double {
    switch random.next() % 6 {
    case 0: return Double(Int64(bitPattern: random.next()) >> 12)
    case 1: return -Double(random.next() % 1000) / 8
    case 2: return 0
    case 3: return Double.ulpOfOne * Double(random.next() % 100)
    case 4: return 1e300 * Double(random.next() % 10)
    default:
      let double = Double(bitPattern: random.next())
      return double.isFinite ? double : 0.1
    }
  }

  /// An integer: small, negative, or at the edges of 64 bits.
  public static func randomInteger(_ random: inout SeededRandom) -> Int64 {
    switch random.next() % 4 {
    case 0: return Int64(random.next() % 100)
    case 1: return -Int64(random.next() % 100_000)
    case 2:
      return [Int64.max, Int64.min, Int64.min + 1, 1 << 53, (1 << 53) + 1][
        Int(random.next() % 5)]
    default: return Int64(bitPattern: random.next())
    }
  }

  /// A record of ``schema`` with random values.
  public static func randomRecord(_ random: inout SeededRandom) -> Record {
    let id = RecordID.random(using: &random)
    let counter = randomCounter(&random)
    let seconds = Double(Int64(random.next() % 4_000_000_000)) / 7
    return try! Record(
      schema: schema, id: id,
      values: [
        .string(randomText(&random)), .integer(randomInteger(&random)),
        .double(randomDouble(&random)),
        .date(Timestamp(secondsSince1970: random.next() % 3 == 0 ? -seconds : seconds)!),
        .bool(random.next() % 2 == 0),
        random.next() % 2 == 0 ? .none : .blob(BlobRef(of: random.bytes(5))),
        random.next() % 2 == 0 ? .none : .reference(RecordID.random(using: &random)),
        .bytes(random.bytes(Int(random.next() % 7))), .counter(counter),
        random.next() % 2 == 0 ? .none : .string(randomText(&random)),
      ])
  }

  /// A counter: plain, moved by one device, or in an epoch of its own with several devices'
  /// moves both ways.
  public static func randomCounter(_ random: inout SeededRandom) -> Counter {
    let devices = (0..<3).map { _ in DeviceID(RecordID.random(using: &random).rawValue)! }
    switch random.next() % 3 {
    case 0: return Counter(base: randomInteger(&random))
    case 1: return Counter(base: 3, increments: [devices[0]: Int64(random.next() % 9 + 1)])
    default:
      let epoch = random.next() % 2 == 0 ? nil : CounterEpoch(RecordID.random(using: &random))
      return Counter(
        base: randomInteger(&random), epoch: epoch,
        increments: [devices[0]: Int64(random.next() % 1000 + 1), devices[1]: Int64.max],
        decrements: [devices[2]: Int64(random.next() % 9 + 1), devices[0]: 1])
    }
  }

  /// Versions of `line` that a writer never writes: every single-byte change at `positions`
  /// (flipped bits and structural characters), every truncation, and edits a hand or another
  /// program might make (whitespace, escapes of plain characters, numbers written otherwise,
  /// members reordered, repeated or added).
  public static func damaged(_ line: [UInt8], random: inout SeededRandom) -> [[UInt8]] {
    var out = [[UInt8]]()
    let replacements: [UInt8] = Array(#"0{}[]",:\ .e-"#.utf8) + [0x00, 0x0A, 0x80, 0xC3, 0xFF]
    for position in line.indices {
      var flipped = line
      flipped[position] ^= UInt8(1) << UInt8(random.next() % 8)
      out.append(flipped)
      var replaced = line
      replaced[position] = replacements[Int(random.next() % UInt64(replacements.count))]
      out.append(replaced)
    }
    for count in 0..<line.count { out.append(Array(line[..<count])) }
    let text = String(decoding: line, as: UTF8.self)
    func edit(_ target: String, _ replacement: String) {
      guard text.contains(target) else { return }
      out.append(Array(text.replacingOccurrences(of: target, with: replacement).utf8))
    }
    edit(":", ": ")
    edit(",", " ,")
    edit("{", "{ ")
    out.append(Array((text + " ").utf8))
    out.append(Array((" " + text).utf8))
    edit("e", "\\u0065")
    edit(#""id""#, #""\u0069d""#)
    edit("a", "\\u0061")
    edit("\\n", "\\u000a")
    edit("\\\"", "\\u0022")
    edit("/", "\\/")
    for (target, replacements) in [
      (#""generation":"#, ["1.0", "1e0", "-0", "01", "1E0"]),
      (#""row":"#, ["1.0", "1e0", "-0", "9223372036854775808"]),
      (#""count":"#, ["1.0", "1e0", "-0", "-0.0", "9223372036854775808", "1e400"]),
      (#""ratio":"#, ["1", "1e0", "-0", "1E+2", "1e400", "0.1000000000000000000000001"]),
      (#""authoredAt":"#, ["1", "1e0", "-0", "1.5e9", "9007199254740993"]),
      (#""when":"#, ["1", "-0", "1e0", "9007199254740993"]),
      (#""stock":"#, ["1.0", "-0", "1e0"]),
      (#""size":"#, ["1.0", "-1", "5e0"]),
    ] {
      for replacement in replacements {
        guard let range = text.range(of: target) else { break }
        var edited = text
        let valueEnd =
          edited[range.upperBound...].firstIndex { ",}]".contains($0) } ?? edited.endIndex
        edited.replaceSubrange(range.upperBound..<valueEnd, with: replacement)
        out.append(Array(edited.utf8))
      }
    }
    if case .object(let object)? = try? JSONParser.parse(line) {
      for variant in restructured(.object(object)) {
        out.append(JSONWriter.bytes(variant))
      }
    }
    return out
  }

  /// The value with one object's members reordered, one repeated, one added, or one removed,
  /// at every depth.
  static func restructured(_ value: JSONValue) -> [JSONValue] {
    guard case .object(let object) = value else { return [] }
    let members = Array(object)
    var out = [JSONValue]()
    if members.count > 1 {
      out.append(.object(JSONObject(members.reversed().map { ($0.key, $0.value) })))
      var swapped = members.map { ($0.key, $0.value) }
      swapped.swapAt(0, 1)
      out.append(.object(JSONObject(swapped)))
    }
    for index in members.indices {
      var repeated = members.map { ($0.key, $0.value) }
      repeated.insert(repeated[index], at: index)
      out.append(.object(JSONObject(repeated)))
      var removed = members.map { ($0.key, $0.value) }
      removed.remove(at: index)
      out.append(.object(JSONObject(removed)))
      for inner in restructured(members[index].value) {
        var replaced = members.map { ($0.key, $0.value) }
        replaced[index].1 = inner
        out.append(.object(JSONObject(replaced)))
      }
    }
    out.append(.object(JSONObject(members.map { ($0.key, $0.value) } + [("extra", .null)])))
    return out
  }

  /// The `op` object's bytes of every operation line of a store file (`{"crc":…,"tx":…,
  /// "op":{…}}`).
  public static func operations(ofStore bytes: [UInt8]) -> [[UInt8]] {
    let marker = Array(#","op":"#.utf8)
    return bytes.split(separator: 10).compactMap { line -> [UInt8]? in
      let line = Array(line)
      guard line.count > 18 + marker.count, line.last == UInt8(ascii: "}") else { return nil }
      for start in 18..<(line.count - marker.count)
      where line[start..<(start + marker.count)].elementsEqual(marker) {
        return Array(line[(start + marker.count)..<(line.count - 1)])
      }
      return nil
    }
  }

  /// Every file below `Fixtures/` whose name ends in `suffix`.
  public static func fixtureFiles(endingIn suffix: String) -> [URL] {
    let enumerator = FileManager.default.enumerator(
      at: Fixtures.root, includingPropertiesForKeys: nil)
    var found = [URL]()
    while let url = enumerator?.nextObject() as? URL {
      if url.lastPathComponent.hasSuffix(suffix) { found.append(url) }
    }
    return found.sorted { $0.path < $1.path }
  }
}

extension DirectReadLines {
  /// What `content`'s direct reader answered for an operation line, against the tree.
  public enum Comparison: Equatable {
    /// The direct reader gave up (`nil`): the tree reads the line.
    case declined
    /// The direct reader gave what the tree gives.
    case agrees
    /// The direct reader answered something the tree does not: the problem, for the test to
    /// record (this target is built in release too, where `Testing` is not).
    case disagrees(String)

    /// Whether the direct reader took the line.
    public var taken: Bool { self != .declined }
    /// What it answered that the tree does not, if anything.
    public var problem: String? {
      guard case .disagrees(let problem) = self else { return nil }
      return problem
    }
  }

  /// How `content`'s direct reader answers `operation` (an operation line's object, as its
  /// bytes), against the tree.
  public static func compare<Content: LogContent>(
    _ operation: [UInt8], _ content: Content, _ note: String
  ) -> Comparison where Content.Change: Equatable {
    let direct = operation.withUnsafeBytes { content.change(fromBytes: $0, line: 9) }
    guard let direct else { return .declined }
    let text = String(decoding: operation, as: UTF8.self)
    do {
      guard case .object(let object) = try JSONParser.parse(operation) else {
        throw ModelError("not an object")
      }
      let change = try content.change(from: object, line: 9)
      return change == direct ? .agrees : .disagrees("\(note): \(change) != \(direct): \(text)")
    } catch {
      return .disagrees(
        "\(note): the tree refuses (\(error)) what the direct reader reads: \(text)")
    }
  }
}
