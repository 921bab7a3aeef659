import Foundation
import StashBase
import StashTestSupport
import Testing

/// CSV dates are ISO-8601 in UTC, exact to the bit through a round trip; an import reads the
/// old seconds since 1970 too (issue 24, item 6).
@Suite struct CSVDateTests {
  /// The `createdAt` and `updatedAt` cells of each item row of a CSV export.
  private func dates(_ csv: String) -> [[String]] {
    csv.split(separator: "\n").dropFirst().map { line in
      line.split(separator: ",", omittingEmptySubsequences: false).suffix(2).map(String.init)
    }
  }

  @Test func anExportWritesISO8601InUTC() throws {
    try withCLI { cli in
      try cli.run(["add", "Soap"])
      let export = try cli.run(["export", "--format", "csv"])
      #expect(export.standardOutput.hasPrefix("id,name,"))
      #expect(dates(export.standardOutput) == [["2025-11-29T18:40:00Z", "2025-11-29T18:40:00Z"]])
    }
  }

  /// A time with a fraction of a second, and one that is not a short decimal at all (as the
  /// real clock gives), come back as the same `Double`, so the same record hash.
  @Test(arguments: ["1764441600.25", "1764441600.123456", "-86399.000001"])
  func anExportImportsWithTheSameTimesToTheBit(now: String) throws {
    try withCLI { cli in
      try cli.shell("STASH_NOW=\(now) \"$0\" add Soap --quantity 2")
      let export = try cli.run(["export", "--format", "csv"]).standardOutput
      let written = try #require(dates(export).first?.first)
      #expect(written.hasSuffix("Z") && written.contains("."), "\(written)")
      let file = cli.folder.appendingPathComponent("items.csv")
      try Data(export.utf8).write(to: file)
      var other = cli
      other.home = cli.folder.appendingPathComponent("other")
      let imported = try other.run(["import", file.path])
      #expect(imported.status == 0, "\(imported)")
      let here = try cli.run(["show", "Soap", "--json"]).json()
      let there = try other.run(["show", "Soap", "--json"]).json()
      #expect(here["fields"]?["createdAt"] == there["fields"]?["createdAt"], "\(here) \(there)")
      #expect(here["hash"] == there["hash"], "the record came back to the bit")
      #expect(try other.run(["export", "--format", "csv"]).standardOutput == export)
    }
  }

  @Test func anImportReadsTheOldSecondsAndISO8601WithAnOffset() throws {
    try withCLI { cli in
      let file = cli.folder.appendingPathComponent("old.csv")
      try Data(
        """
        name,quantity,createdAt,updatedAt
        Old,1,1764441600.5,1764441601
        New,1,2025-11-29T19:40:00.5+01:00,2025-11-29T18:40:01Z

        """.utf8
      ).write(to: file)
      let run = try cli.run(["import", file.path])
      #expect(run.status == 0, "\(run)")
      let export = try cli.run(["export", "--format", "csv"]).standardOutput
      let times = dates(export)
      #expect(times.count == 2)
      for row in times {
        #expect(row == ["2025-11-29T18:40:00.5Z", "2025-11-29T18:40:01Z"], "\(export)")
      }
    }
  }

  @Test(arguments: [
    "2025-13-01T00:00:00Z", "2025-02-30T00:00:00Z", "2025-11-29T18:40:00", "2025-11-29 18:40:00Z",
    "2025-11-29T24:00:00Z", "10000-01-01T00:00:00Z", "2025-11-29T18:40:00.Z", "nan",
  ])
  func anImportRefusesADateItCannotRead(date: String) throws {
    try withCLI { cli in
      let file = cli.folder.appendingPathComponent("bad.csv")
      try Data("name,createdAt\nSoap,\(date)\n".utf8).write(to: file)
      let run = try cli.run(["import", file.path])
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.contains("'\(date)' as createdAt"), "\(run)")
      #expect(!FileManager.default.fileExists(atPath: cli.home.path), "nothing was created")
    }
  }
}
