import Foundation
import LocalStore
import StashModel
import StashTestSupport
import Testing

/// ``RecordLimits/certainlyFits(_:)`` lets a save skip writing a record's JSON to measure it:
/// it may only say "fits" for records that do.
@Suite struct RecordLimitTests {
  /// A counter with moves by up to 600 devices.
  func counter(_ random: inout SeededRandom) -> Counter {
    var increments = [DeviceID: Int64]()
    var decrements = [DeviceID: Int64]()
    for _ in 0..<Int(random.next() % 300) {
      increments[DeviceID(RecordID.random(using: &random).rawValue)!] = Int64(random.next() % 99)
      decrements[DeviceID(RecordID.random(using: &random).rawValue)!] = Int64.max
    }
    return Counter(
      base: Int64.min, epoch: CounterEpoch(RecordID.random(using: &random)),
      increments: increments, decrements: decrements)
  }

  @Test func certainlyFitsNeverPassesARecordOverTheLimit() throws {
    let seed: UInt64 = 64_000
    print("RecordLimitTests seed \(seed)")
    var random = SeededRandom(seed: seed)
    let schema = try Schema(
      model: "note",
      fields: [
        FieldSpec("text", .string), FieldSpec("more", .optional(.string)),
        FieldSpec("count", .counter), FieldSpec("at", .optional(.date)),
      ])
    // Control characters (6 bytes each in JSON), quotes, multi-byte letters, plain text.
    let pieces = ["\u{1}", "\"", "é", "🧴", "a", "\\", "\n"]
    var measured = 0
    var fitting = 0
    for _ in 0..<300 {
      let length = Int(random.next() % 16_000)
      var text = ""
      let piece = pieces[Int(random.next() % UInt64(pieces.count))]
      for _ in 0..<length { text += random.next() % 3 == 0 ? piece : "x" }
      let record = try Record(
        schema: schema, id: .random(using: &random),
        values: [
          .string(text), random.next() % 2 == 0 ? .none : .string(piece),
          .counter(counter(&random)), .none,
        ])
      let size = RecordLimits.size(of: record)
      if RecordLimits.certainlyFits(record) {
        fitting += 1
        #expect(size <= RecordLimits.maximumRecordBytes, "length \(length) of '\(piece)'")
      } else {
        measured += 1
      }
    }
    #expect(fitting > 0 && measured > 0, "both paths taken: \(fitting) fit, \(measured) measured")
  }
}
