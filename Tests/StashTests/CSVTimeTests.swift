import StashModel
import StashTestSupport
import Testing

@testable import Stash

/// CSV dates read back to the very `Double` they were written from, across the years 1 to
/// 9999 and with any fraction of a second (issue 24, item 6).
@Suite struct CSVTimeTests {
  @Test(arguments: [
    (0.0, "1970-01-01T00:00:00Z"), (1_764_441_600, "2025-11-29T18:40:00Z"),
    (1_764_441_600.25, "2025-11-29T18:40:00.25Z"), (-0.5, "1969-12-31T23:59:59.5Z"),
    (951_782_400, "2000-02-29T00:00:00Z"), (Limits.earliestDate, "0001-01-01T00:00:00Z"),
    (Limits.latestDate, "9999-12-31T23:59:59Z"), (0.00001, "1970-01-01T00:00:00.00001Z"),
  ])
  func aMomentIsWrittenAsISO8601InUTC(seconds: Double, text: String) throws {
    let time = try #require(Timestamp(secondsSince1970: seconds))
    #expect(CSV.text(of: time) == text)
    #expect(CSV.timestamp(text) == time)
  }

  @Test func everyMomentReadsBackToTheBit() throws {
    var random = SeededRandom(seed: 24_6)
    let span = Limits.latestDate - Limits.earliestDate
    for round in 0..<20_000 {
      let unit = Double(random.next() >> 11) / Double(1 << 53)
      var seconds = Limits.earliestDate + unit * span
      switch round % 4 {
      case 0: seconds = seconds.rounded(.down)
      case 1: seconds = (seconds * 1_000).rounded() / 1_000
      case 2: seconds = Double(Int64(seconds) % 4_000_000_000) + unit  // near today
      default: break
      }
      let time = try #require(Timestamp(secondsSince1970: seconds))
      let text = CSV.text(of: time)
      #expect(text.hasSuffix("Z"), "seed \(random.seed): \(seconds) as \(text)")
      #expect(CSV.timestamp(text) == time, "seed \(random.seed): \(seconds) as \(text)")
    }
  }

  @Test func theOldSecondsSince1970StillRead() {
    #expect(CSV.timestamp("1764441600.0")?.secondsSince1970 == 1_764_441_600)
    #expect(CSV.timestamp("1e-05")?.secondsSince1970 == 0.00001)
    #expect(CSV.timestamp("-62135596800.0")?.secondsSince1970 == Limits.earliestDate)
    for text in ["nan", "inf", "", " 5", "0x10", "2025-11-29", "2025-11-29T18:40:00+0100"] {
      #expect(CSV.timestamp(text) == nil, "\(text)")
    }
  }
}
