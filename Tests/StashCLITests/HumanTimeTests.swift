import Foundation
import StashTestSupport
import Testing

/// Human output writes times in the local zone (`TZ`) with the C library's zone rules: the
/// same text Foundation's `DateFormatter` writes, for zones with half- and quarter-hour
/// offsets, both sides of daylight-saving changes, and seeded random moments.
@Suite struct HumanTimeTests {
  /// What `DateFormatter` writes for `seconds` in `zone` (the oracle).
  static func expected(_ seconds: Double, zone: String) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.calendar = Calendar(identifier: .gregorian)
    formatter.timeZone = TimeZone(identifier: zone)
    formatter.dateFormat = "yyyy-MM-dd HH:mm:ss xxx"
    return formatter.string(from: Date(timeIntervalSince1970: seconds))
  }

  @Test func historyTimesMatchFoundationsInEveryZone() throws {
    let seed: UInt64 = 20_261_202
    print("HumanTimeTests seed \(seed)")
    var random = SeededRandom(seed: seed)
    // Around the 2026 changes in Europe (29 March, 25 October, 01:00 UTC) and the US
    // (8 March, 1 November), an instant before 1970, and random moments up to 2100.
    var moments: [Double] = [
      1_774_745_999, 1_774_746_000, 1_792_890_000, 1_772_953_200, 1_793_512_800, -86_400.5,
    ]
    for _ in 0..<10 { moments.append(Double(random.next() % 4_102_444_800) + 0.75) }
    try withCLI { cli in
      try cli.run(["add", "Soap", "--quantity", "100"])
      for moment in moments {
        try cli.shell("STASH_NOW=\(moment) \"$0\" consume Soap")
      }
      for zone in ["UTC", "Asia/Kolkata", "America/St_Johns", "Asia/Kathmandu", "Europe/Amsterdam"]
      {
        let history = try cli.shell("TZ=\(zone) \"$0\" history Soap").standardOutput
        for moment in moments {
          let text = Self.expected(moment, zone: zone)
          #expect(history.contains(text), "\(zone) \(moment): '\(text)' in\n\(history)")
        }
      }
    }
  }
}
