import Foundation
import Stash
import StashModel
import Testing

/// `stash list` and `stash export` on a store with an index read its items one at a time
/// through it (issue 26, item 4); what they print is byte for byte what they printed when
/// they read the store whole, which they still do when the index is missing.
@Suite struct StreamedListTests {
  static let names = [
    "Zebra", "zebra", "apple", "\u{E9}clair", "e\u{301}clair", "Eclair", "\u{130}stanbul",
    "Stra\u{DF}e", "Koleston, \"7/1\" \u{1F3A8}", "\u{1F9F4} soap", "Tube 10", "Tube 9",
  ]

  /// A CSV of `count` items: varied names (ties included), three locations, some low on
  /// stock, notes with a line break.
  static func csv(count: Int) -> String {
    var lines = [
      "id,name,brand,quantity,unit,notes,location,lowStockThreshold,barcode,photo,photoSize,"
        + "createdAt,updatedAt"
    ]
    for index in 0..<count {
      let name = names[index % names.count] + (index % 5 == 0 ? "" : " \(index / 7)")
      let quoted = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
      let location = ["Kitchen", "Bath", "Cellar", ""][index % 4]
      let threshold = index % 3 == 0 ? "5" : ""
      let notes = index % 11 == 0 ? "\"Two left\nin the back\"" : "Opened"
      lines.append(
        "\(String(format: "%08x", index))-0000-4000-8000-000000000000,\(quoted),,\(index % 9),"
          + "tube,\(notes),\(location),\(threshold),,,,2026-01-01T00:00:00Z,2026-01-01T00:00:00Z")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  @Test func listAndExportThroughTheIndexPrintWhatAWholeReadPrints() throws {
    try withCLI { cli in
      let file = cli.folder.appendingPathComponent("items.csv")
      try Data(Self.csv(count: 2_100).utf8).write(to: file)
      let imported = try cli.run(["import", file.path])
      #expect(imported.status == 0, "\(imported)")
      // The first save after the bulk load reads the store whole and writes its index; the
      // next ones lie after its prefix.
      #expect(try cli.run(["restock", "00000001", "2"]).status == 0)
      let index = cli.home.appendingPathComponent("default.store.index")
      #expect(FileManager.default.fileExists(atPath: index.path))
      #expect(try cli.run(["add", "Aardvark", "--quantity", "1"]).status == 0)
      #expect(try cli.run(["edit", "00000002", "--name", "zzz last"]).status == 0)
      #expect(try cli.run(["delete", "00000003"]).status == 0)
      let commands = [
        ["list"], ["list", "--json"], ["list", "--low-stock"], ["list", "--location", "Kitchen"],
        ["list", "--json", "--low-stock", "--location", "bath"], ["list", "--location", "Nowhere"],
        ["list", "--pending"], ["export", "--format", "csv"], ["export", "--format", "jsonl"],
      ]
      let streamed = try commands.map { try cli.run($0) }
      let aside = cli.folder.appendingPathComponent("index-aside")
      try FileManager.default.moveItem(at: index, to: aside)
      // Each reads the store whole, then writes the index again for the next one: removed.
      let whole = try commands.map { command in
        defer { try? FileManager.default.removeItem(at: index) }
        return try cli.run(command)
      }
      for (command, (byIndex, byReading)) in zip(commands, zip(streamed, whole)) {
        #expect(byIndex.status == byReading.status, "\(command)")
        #expect(byIndex.standardOutput == byReading.standardOutput, "\(command)")
        #expect(byIndex.standardError == byReading.standardError, "\(command)")
      }
      #expect(streamed[0].standardOutput.split(separator: "\n").count == 2_100 + 1)
      #expect(try streamed[1].json().elements.count == 2_100)
      // A listing that read the store whole wrote its index again.
      #expect(try cli.run(["list"]).status == 0)
      #expect(FileManager.default.fileExists(atPath: index.path))
      try FileManager.default.removeItem(at: index)
      // Written to a file, a buffer at a time: the same bytes.
      try FileManager.default.moveItem(at: aside, to: index)
      let exported = cli.folder.appendingPathComponent("export.csv")
      let written = try cli.run(["export", "--format", "csv", "--output", exported.path])
      #expect(written.status == 0 && written.standardOutput.isEmpty, "\(written)")
      #expect(try String(contentsOf: exported, encoding: .utf8) == whole[7].standardOutput)
    }
  }
}
