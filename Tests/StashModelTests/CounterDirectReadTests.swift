import StashBase
import StashModel
import StashTestSupport
import Testing

/// A counter with moves is read straight from the bytes of its JSON form
/// (``Counter/read(from:)``) as the tree reads it (``Counter/init(json:field:)``), or refused:
/// an item used a few hundred times has one in every line of its history, and through its tree
/// it cost two thirds of reading the line.
@Suite struct CounterDirectReadTests {
  /// The direct reader's answer for the whole of `bytes`.
  static func direct(_ bytes: [UInt8]) -> Counter? {
    bytes.withUnsafeBytes { raw -> Counter? in
      var cursor = JSONCursor(raw)
      guard let counter = Counter.read(from: &cursor), cursor.isAtEnd else { return nil }
      return counter
    }
  }

  /// The tree's answer.
  static func tree(_ bytes: [UInt8]) -> Counter? {
    guard let json = try? JSONParser.parse(bytes) else { return nil }
    return try? Counter(json: json, field: "stock")
  }

  @Test(arguments: TestEnvironment.seeds(default: 4))
  func writtenCountersReadDirectlyAsTheTreeReadsThem(seed: UInt64) {
    var random = SeededRandom(seed: seed)
    var read = 0
    for _ in 0..<200 {
      let counter = DirectReadLines.randomCounter(&random)
      let bytes = JSONWriter.bytes(counter.json)
      if counter.isPlain {
        #expect(Self.direct(bytes) == nil, "a plain counter is an integer, read as one")
        continue
      }
      #expect(Self.direct(bytes) == counter, "\(String(decoding: bytes, as: UTF8.self))")
      read += 1
      for damaged in DirectReadLines.damaged(bytes, random: &random) {
        guard let direct = Self.direct(damaged) else { continue }
        #expect(direct == Self.tree(damaged), "\(String(decoding: damaged, as: UTF8.self))")
      }
    }
    #expect(read > 50)
  }

  @Test func whatTheTreeRefusesIsRefused() {
    let device = "00000000-0000-4000-8000-000000000001"
    for text in [
      #"{"epoch":null,"base":3,"p":{},"n":{}}"#,  // a first epoch without moves
      #"{"epoch":null,"base":3,"p":{"\#(device)":0},"n":{}}"#,
      #"{"epoch":null,"base":3,"p":{"\#(device)":-1},"n":{}}"#,
      #"{"epoch":null,"base":3,"p":{"\#(device)":1,"\#(device)":2},"n":{}}"#,
      #"{"epoch":null,"base":3,"p":{"not a device":1},"n":{}}"#,
      #"{"epoch":"not an id","base":3,"p":{"\#(device)":1},"n":{}}"#,
      #"{"epoch":null,"base":"3","p":{"\#(device)":1},"n":{}}"#,
    ] {
      #expect(Self.direct(Array(text.utf8)) == nil, "\(text)")
      #expect(Self.tree(Array(text.utf8)) == nil, "\(text)")
    }
  }
}
