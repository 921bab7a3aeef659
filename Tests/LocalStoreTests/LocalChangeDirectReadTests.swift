import Foundation
import JSONLines
import LocalStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The local store's row and checkpoint lines are read straight from their bytes
/// (`LocalContent.change(fromBytes:line:)`, issue 26, item 5): for every line, the direct
/// reader gives up or gives exactly the change the JSON tree gives
/// (`LocalContent.change(from:line:)`, the reference), and it never gives up on a line the
/// writer wrote.
@Suite struct LocalChangeDirectReadTests {
  static func content(_ schemas: SchemaRegistry) -> LocalContent {
    let header = LogHeader(
      format: LocalContent.format, version: LocalContent.version,
      storeID: StoreID("00000000-0000-4000-8000-00000000105a")!,
      deviceID: DeviceID("00000000-0000-4000-8000-0000000000d1")!,
      created: Timestamp(secondsSince1970: 1_764_441_600)!)
    return LocalContent(header: header, context: schemas)
  }

  /// Whether the direct reader took `operation`; records an issue when it answers something
  /// the tree does not (see ``DirectReadLines/compare(_:_:_:)``).
  @discardableResult
  static func check(_ operation: [UInt8], _ content: LocalContent, _ note: String) -> Bool {
    let comparison = DirectReadLines.compare(operation, content, note)
    if let problem = comparison.problem { Issue.record(Comment(rawValue: problem)) }
    return comparison.taken
  }

  static func randomChanges(_ random: inout SeededRandom) -> [LocalChange] {
    let record = DirectReadLines.randomRecord(&random)
    let hash = SnapshotHash(of: record)
    let version = VersionID(naming: SnapshotHash(digest: SHA256.hash(random.bytes(8))))
    return [
      .putRow(RowID(Int64(random.next() % UInt64(RowID.maximum)) + 1), record, hash),
      .putCheckpoint(record.key, Checkpoint(hash: hash, isTombstone: random.next() % 2 == 0)),
      .putCheckpoint(record.key, Checkpoint(hash: hash, isTombstone: false, version: version)),
    ]
  }

  @Test(arguments: TestEnvironment.seeds(default: 4))
  func writtenRowsAndCheckpointsReadDirectlyAsTheTreeReadsThem(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let content = Self.content(DirectReadLines.registry)
    var taken = 0
    var written = 0
    for _ in 0..<300 {
      for change in Self.randomChanges(&random) {
        var bytes = [UInt8]()
        LocalContent.appendOperation(for: change, to: &bytes)
        written += 1
        if Self.check(bytes, content, "seed \(seed)") { taken += 1 }
        let direct = bytes.withUnsafeBytes { content.change(fromBytes: $0, line: 9) }
        #expect(direct == change, "seed \(seed)")
      }
    }
    // Every line the writer wrote is read directly (a reader that always gives up fails).
    #expect(taken == written, "\(taken) of \(written) lines read directly")
  }

  /// Every other operation, and rows whose record the schema or the model refuses (the tree
  /// sets them aside as damaged rows), go through the tree.
  @Test func otherOperationsAndRefusedRowsAreLeftToTheTree() throws {
    let content = Self.content(InventorySchemas.registry)
    let id = "00000000-0000-4000-8000-000000000001"
    let hash = String(repeating: "ab", count: 32)
    for text in [
      #"{"remove":{"row":3}}"#, #"{"bind":{"mirror":null}}"#,
      #"{"put":{"row":1,"model":"nope","id":"\#(id)","hash":"\#(hash)","fields":{}}}"#,
      #"{"put":{"row":0,"model":"item","id":"\#(id)","hash":"\#(hash)","fields":{}}}"#,
      #"{"put":{"row":1,"model":"item","id":"\#(id)","hash":"\#(hash)","fields":{"name":1}}}"#,
      #"{"checkpoint":{"model":"","id":"\#(id)","hash":"\#(hash)","tombstone":true}}"#,
      #"{"uncheckpoint":{"model":"item","id":"\#(id)"}}"#,
    ] {
      let taken = Array(text.utf8).withUnsafeBytes { content.change(fromBytes: $0, line: 2) }
      #expect(taken == nil, "\(text)")
    }
  }

  @Test(arguments: TestEnvironment.seeds(default: 2))
  func damagedLinesAreRefusedOrReadAsTheTreeReadsThem(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    let content = Self.content(DirectReadLines.registry)
    for _ in 0..<40 {
      for change in Self.randomChanges(&random) {
        var bytes = [UInt8]()
        LocalContent.appendOperation(for: change, to: &bytes)
        for variant in DirectReadLines.damaged(bytes, random: &random) {
          Self.check(variant, content, "seed \(seed)")
        }
      }
    }
  }

  /// Every operation of every local store under `Fixtures/`, with the inventory's schemas.
  @Test func everyFixtureStoreLineReadsDirectlyAsTheTreeReadsIt() throws {
    let content = Self.content(InventorySchemas.registry)
    var taken = 0
    for url in DirectReadLines.fixtureFiles(endingIn: "default.store") {
      for operation in DirectReadLines.operations(ofStore: [UInt8](try Data(contentsOf: url))) {
        if Self.check(operation, content, url.path) { taken += 1 }
      }
    }
    #expect(taken > 0)
  }
}
