import StashModel
import Testing

/// `STASH_NOW`: plain seconds since 1970 within the model's dates, or a refusal.
@Suite struct FixedClockTests {
  @Test(arguments: [
    ("1764441600", 1_764_441_600.0), ("1764441600.25", 1_764_441_600.25), ("0", 0),
    ("-1.5", -1.5), ("-62135596800", Limits.earliestDate), ("253402300799", Limits.latestDate),
    ("000012", 12),
  ])
  func plainSecondsInRangeFixTheClock(text: String, seconds: Double) throws {
    let fixed = try Timestamp.fixed(environment: ["STASH_NOW": text])
    #expect(fixed?.secondsSince1970 == seconds)
    #expect(Timestamp.now(environment: ["STASH_NOW": text]).secondsSince1970 == seconds)
  }

  @Test func anUnsetOrEmptyValueMeansTheRealClock() throws {
    #expect(try Timestamp.fixed(environment: [:]) == nil)
    #expect(try Timestamp.fixed(environment: ["STASH_NOW": ""]) == nil)
  }

  @Test(arguments: [
    "garbage", "1e20", "1e9", "1E9", "nan", "NaN", "inf", "-inf", "infinity", "0x10", "0x1p30",
    " 5", "5 ", "\t5", "+5", "1.", ".5", "-", "--5", "1.2.3", "1,5", "1_000", "\u{661}",
    "\u{FF11}", "5\n", "253402300800", "-62135596801", String(repeating: "9", count: 400),
  ])
  func anythingElseIsRefusedNamingTheVariable(text: String) {
    #expect {
      try Timestamp.fixed(environment: ["STASH_NOW": text])
    } throws: { error in
      let message = (error as? ModelError)?.message ?? ""
      return message.hasPrefix("STASH_NOW '\(text)' ") && message.contains("unset it")
        && !message.hasSuffix(".")
    }
  }

  @Test func theLibraryClockIgnoresWhatTheToolRefuses() {
    let now = Timestamp.now(environment: ["STASH_NOW": "1e20"])
    #expect(now.secondsSince1970 < Limits.latestDate)
  }
}
