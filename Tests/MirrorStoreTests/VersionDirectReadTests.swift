import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// A segment's version lines and the mirror's `version` lines are read straight from their
/// bytes (issue 26, item 5): for every line, the direct reader gives up or gives exactly the
/// version the JSON tree gives (``MirrorVersion/init(json:schemas:format:verifying:)``, the
/// reference), and it never gives up on a line the writer wrote.
@Suite struct VersionDirectReadTests {
  static let content: MirrorContent = {
    let header = LogHeader(
      format: MirrorContent.format, version: MirrorContent.version,
      storeID: StoreID("00000000-0000-4000-8000-00000000c10d")!,
      deviceID: DeviceID("00000000-0000-4000-8000-0000000000d1")!,
      created: Timestamp(secondsSince1970: 1_764_441_600)!)
    let schemas = try! SchemaRegistry(
      [DirectReadLines.schema] + Array(InventorySchemas.registry.schemas.values))
    return MirrorContent(header: header, context: MirrorContent.Context(schemas: schemas))
  }()

  static var schemas: SchemaRegistry {
    try! SchemaRegistry([DirectReadLines.schema] + Array(InventorySchemas.registry.schemas.values))
  }

  /// Whether the direct reader took the segment line; records an issue when it answers
  /// something the tree does not.
  @discardableResult
  static func checkSegmentLine(
    _ line: [UInt8], format: Int?, _ schemas: SchemaRegistry, _ note: String
  ) -> Bool {
    let direct = line.withUnsafeBytes {
      MirrorVersion.read(line: $0, schemas: schemas, format: format)
    }
    guard let direct else { return false }
    let tree = Result { () throws -> MirrorVersion in
      guard case .object(let object) = try JSONParser.parse(line) else {
        throw ModelError("not an object")
      }
      return try MirrorVersion(json: object, schemas: schemas, format: format)
    }
    switch tree {
    case .success(let version):
      #expect(version == direct, "\(note): \(String(decoding: line, as: UTF8.self))")
      #expect(version.parents == direct.parents && version.authoredAt == direct.authoredAt)
    case .failure(let error):
      Issue.record(
        "\(note): the tree refuses (\(error)) what the direct reader reads: \(String(decoding: line, as: UTF8.self))"
      )
    }
    return true
  }

  /// Whether the direct reader took the mirror's operation; records an issue when it answers
  /// something the tree does not (see ``DirectReadLines/compare(_:_:_:)``).
  @discardableResult
  static func checkOperation(_ operation: [UInt8], _ note: String) -> Bool {
    let comparison = DirectReadLines.compare(operation, content, note)
    if let problem = comparison.problem { Issue.record(Comment(rawValue: problem)) }
    return comparison.taken
  }

  static func randomVersion(_ random: inout SeededRandom) -> MirrorVersion {
    let record = DirectReadLines.randomRecord(&random)
    let time = Timestamp(secondsSince1970: Double(random.next() % 4_000_000_000) / 8)!
    let snapshot: Snapshot =
      random.next() % 4 == 0
      ? .tombstone(
        Tombstone(
          model: record.model, id: record.id, deletedAt: time,
          deletedHash: SnapshotHash(of: record)))
      : .record(record)
    let parents = Set(
      (0..<Int(random.next() % 4)).map { _ in
        VersionID(naming: SnapshotHash(digest: SHA256.hash(random.bytes(8))))
      })
    return MirrorVersion(
      snapshot: snapshot, parents: parents,
      generation: random.next() % 8 == 0 ? Int64.max : Int64(random.next() % 1_000_000) + 1,
      author: DeviceID(RecordID.random(using: &random).rawValue)!, authoredAt: time)
  }

  @Test(arguments: TestEnvironment.seeds(default: 4))
  func writtenVersionsReadDirectlyAsTheTreeReadsThem(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let schemas = Self.schemas
    var taken = 0
    var written = 0
    for _ in 0..<300 {
      let version = Self.randomVersion(&random)
      var line = [UInt8]()
      version.appendJSON(to: &line)
      for format in [nil, 2, 3, 5] {
        written += 1
        if Self.checkSegmentLine(line, format: format, schemas, "seed \(seed)") { taken += 1 }
      }
      // Format 1 has no ids: such a line is the tree's to refuse.
      #expect(!Self.checkSegmentLine(line, format: 1, schemas, "seed \(seed)"))
      for pending in [true, false] {
        var operation = [UInt8]()
        MirrorContent.appendOperation(for: .addVersion(version, pending: pending), to: &operation)
        written += 1
        if Self.checkOperation(operation, "seed \(seed)") { taken += 1 }
      }
    }
    // Every line the writer wrote is read directly (a reader that always gives up fails).
    #expect(taken == written, "\(taken) of \(written) lines read directly")
  }

  /// A version whose snapshot does not hash to its hash, or whose id does not derive, is the
  /// tree's to refuse (with its message); the mirror's own lines are not verified, as the
  /// tree does not verify them.
  @Test func versionsThatFailTheirChecksAreLeftToTheTree() {
    var random = SeededRandom(seed: 7)
    let version = Self.randomVersion(&random)
    var line = [UInt8]()
    version.appendJSON(to: &line)
    let hex = version.hash.hex
    let other = String(repeating: "0", count: 64)
    var text = String(decoding: line, as: UTF8.self)
    text = text.replacingOccurrences(of: #""hash":"\#(hex)""#, with: #""hash":"\#(other)""#)
    let wrongHash = Array(text.utf8)
    #expect(!Self.checkSegmentLine(wrongHash, format: 3, Self.schemas, "wrong hash"))
    #expect(
      wrongHash.withUnsafeBytes {
        MirrorVersion.read(line: $0, schemas: Self.schemas, format: 3, verifying: false)
      } != nil)
    let selfParent = String(decoding: line, as: UTF8.self).replacingOccurrences(
      of: #""parents":["#, with: #""parents":["\#(version.id.hex)","#)
    #expect(!Self.checkSegmentLine(Array(selfParent.utf8), format: 3, Self.schemas, "self"))
  }

  @Test(arguments: TestEnvironment.seeds(default: 2))
  func damagedLinesAreRefusedOrReadAsTheTreeReadsThem(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let schemas = Self.schemas
    for _ in 0..<30 {
      let version = Self.randomVersion(&random)
      var line = [UInt8]()
      version.appendJSON(to: &line)
      for variant in DirectReadLines.damaged(line, random: &random) {
        Self.checkSegmentLine(variant, format: 3, schemas, "seed \(seed)")
      }
      var operation = [UInt8]()
      MirrorContent.appendOperation(for: .addVersion(version, pending: true), to: &operation)
      for variant in DirectReadLines.damaged(operation, random: &random) {
        Self.checkOperation(variant, "seed \(seed)")
      }
    }
  }

  /// Every version line of every segment and every operation of every mirror store under
  /// `Fixtures/`, with the inventory's schemas.
  @Test func everyFixtureLineReadsDirectlyAsTheTreeReadsIt() throws {
    let schemas = Self.schemas
    var taken = 0
    for url in DirectReadLines.fixtureFiles(endingIn: ".jsonl")
    where url.path.contains("/devices/") {
      let lines = [UInt8](try Data(contentsOf: url)).split(separator: 10).map { Array($0) }
      guard let header = lines.first,
        case .object(let wrapper)? = try? JSONParser.parse(header),
        case .object(let fields)? = wrapper["segment"],
        case .integer(let format)? = fields["version"]
      else { continue }
      for line in lines.dropFirst()
      where Self.checkSegmentLine(line, format: Int(format), schemas, url.path) {
        taken += 1
      }
    }
    for url in DirectReadLines.fixtureFiles(endingIn: "cloud.store") {
      for operation in DirectReadLines.operations(ofStore: [UInt8](try Data(contentsOf: url)))
      where Self.checkOperation(operation, url.path) {
        taken += 1
      }
    }
    #expect(taken > 0)
  }
}
