import Foundation
import StashBase
import StashModel
import StashTestSupport
import Testing

/// `STASH_NOW`: a usable time fixes the clock; anything else is refused, never ignored.
@Suite struct ClockTests {
  static let now = Bytes("1764441600")

  // MARK: - STASH_NOW

  @Test(arguments: [
    "garbage", "1e20", "1e9", "nan", "inf", "-inf", "0x10", " 5", "5 ", "+5", "1.", ".5", "-",
    "253402300800", "-62135596801", "99999999999999999999999999", "1_000", "\u{661}\u{662}",
  ])
  func aSTASHNOWThatIsNotAUsableTimeIsRefused(value: String) throws {
    try withRawCLI { cli in
      let home = Bytes(cli.sandbox + "/home")
      let before = FolderSnapshot(of: cli.sandbox)
      for arguments: [Bytes] in [["add", "Soap"], ["list"]] {
        let run = try cli.run(
          arguments, environment: ["STASH_HOME": home, "STASH_NOW": Bytes(value)])
        #expect(run.status == 1, "\(arguments): \(run)")
        #expect(run.standardError.hasPrefix("STASH_NOW '"), "\(run)")
        #expect(run.standardError.contains("seconds since 1970"), "\(run)")
      }
      #expect(FolderSnapshot(of: cli.sandbox).differences(from: before) == [])
    }
  }

  @Test(arguments: [
    ("1764441600", 1_764_441_600.0), ("1764441600.25", 1_764_441_600.25), ("0", 0),
    ("-62135596800", -62_135_596_800), ("253402300799", 253_402_300_799), ("-0.5", -0.5),
  ])
  func aSTASHNOWInRangeFixesTheClock(value: String, seconds: Double) throws {
    try withRawCLI { cli in
      let environment: [String: Bytes] = [
        "STASH_HOME": Bytes(cli.sandbox + "/home"), "STASH_NOW": Bytes(value),
      ]
      let add = try cli.run(["add", "Soap", "--json"], environment: environment)
      #expect(add.status == 0, "\(add)")
      let show = try cli.run(["show", "Soap", "--json"], environment: environment)
      let created = try #require(try JSONParser.parse(show.standardOutput)["fields"]?["createdAt"])
      #expect(created == .double(seconds) || created == .integer(Int64(seconds)), "\(show)")
    }
  }

  @Test func anEmptySTASHNOWMeansTheRealClock() throws {
    try withRawCLI { cli in
      let run = try cli.run(
        ["add", "Soap"], environment: ["STASH_HOME": Bytes(cli.sandbox + "/home"), "STASH_NOW": ""])
      #expect(run.status == 0, "\(run)")
    }
  }
}
