import Foundation
import Stash
import StashModel
import Testing

/// `stash export` and `stash import`: a round trip between two folders, idempotent, all or
/// nothing.
@Suite struct TransferTests {
  /// A folder with a location, an item kept there (with a photo) and one without.
  private func stock(_ cli: CLI) throws {
    let photo = try cli.photo()
    for arguments in [
      ["location", "add", "bathroom"],
      [
        "add", "Koleston 7/1", "--quantity", "5", "--unit", "tube", "--brand", "Wella",
        "--location", "bathroom", "--photo", photo, "--notes", "Line one,\n\"two\"",
      ],
      ["add", "AA batteries", "--quantity", "12", "--low-stock", "4", "--barcode", "0123"],
    ] {
      let run = try cli.run(arguments)
      #expect(run.status == 0, "\(run)")
    }
  }

  @Test(arguments: ["csv", "jsonl"])
  func anExportImportsIntoAnotherFolderOnceAndOnlyOnce(format: String) throws {
    try withCLI { cli in
      try stock(cli)
      let export = try cli.run(["export", "--format", format])
      #expect(export.status == 0, "\(export)")
      let file = cli.folder.appendingPathComponent("items.\(format)")
      try Data(export.standardOutput.utf8).write(to: file)

      var other = cli
      other.home = cli.folder.appendingPathComponent("other")
      let imported = try other.run(["import", file.path])
      #expect(imported.status == 0, "\(imported)")
      #expect(imported.standardOutput.contains("Imported 2 items"))
      #expect(imported.standardOutput.contains("created 'bathroom'"))
      // CSV names a photo by its SHA-256 only; JSON lines carry its bytes.
      #expect(imported.standardOutput.contains("left off 1 photo") == (format == "csv"))

      let source = try cli.device(create: false)
      let target = try other.device(create: false)
      for item in source.items() {
        var copy = try target.item(item.id.rawValue)
        #expect(copy.photo == (format == "csv" ? nil : item.photo))
        #expect(
          target.locations().first { $0.id == copy.locationID }?.name
            == source.locations().first { $0.id == item.locationID }?.name)
        copy.photo = item.photo
        copy.locationID = item.locationID
        #expect(copy == item)
      }
      let again = try other.run(["import", file.path])
      #expect(again.status == 0)
      #expect(again.standardOutput.contains("2 already here"))
      #expect(target.items().count == 2)
      #expect(try other.device(create: false).items().count == 2)
    }
  }

  /// `import --json` lists the items it added, in file order, as the folder holds them (the
  /// report keeps their ids, not copies of them), and none on a second import of the file.
  @Test func anImportAsJSONListsTheItemsItAddedInFileOrder() throws {
    try withCLI { cli in
      let file = cli.folder.appendingPathComponent("items.csv")
      let rows = [
        "id,name,quantity,location", "5c0ff9a2-8c1e-4b9e-9d7a-2f1c3b4a5d6e,Zinc,3,Shed",
        "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d,Acrylic,1,shed",
      ]
      try Data((rows.joined(separator: "\n") + "\n").utf8).write(to: file)
      let imported = try cli.run(["import", file.path, "--json"])
      #expect(imported.status == 0, "\(imported)")
      let json = try imported.json()
      let added = json["added"]?.elements ?? []
      #expect(added.compactMap { $0["fields"]?["name"]?.text } == ["Zinc", "Acrylic"])
      #expect(added.compactMap { $0["quantity"]?.integer } == [3, 1])
      #expect(json["locationsCreated"]?.elements.compactMap(\.text) == ["Shed"])
      let again = try cli.run(["import", file.path, "--json"]).json()
      #expect(again["added"]?.elements.isEmpty == true)
      #expect(again["alreadyHere"]?.integer == 2)
    }
  }

  /// CSV's commas, quotes and line breaks are bytes: one followed by a combining mark (which
  /// joins it into one Swift `Character`) is still quoted on export and still a separator or
  /// a quote on import.
  @Test func fieldsWithCombiningMarksAfterCommasAndQuotesRoundTripThroughCSV() throws {
    try withCLI { cli in
      let notes = [
        "comma,\u{301}then", "quote \"\u{301}inside\"", "break\n\u{301}after", "\u{301}starts",
      ]
      for (number, note) in notes.enumerated() {
        try cli.run(["add", "Item \(number)", "--notes", note])
      }
      let export = try cli.run(["export", "--format", "csv"])
      #expect(export.status == 0, "\(export)")
      let file = cli.folder.appendingPathComponent("items.csv")
      try Data(export.standardOutput.utf8).write(to: file)
      var other = cli
      other.home = cli.folder.appendingPathComponent("other")
      let imported = try other.run(["import", file.path])
      #expect(imported.status == 0, "\(imported)")
      let items = try other.device(create: false).items()
      for (number, note) in notes.enumerated() {
        let item = items.first { $0.name == "Item \(number)" }
        #expect(item?.notes.unicodeScalars.elementsEqual(note.unicodeScalars) == true, "\(note)")
      }
    }
  }

  @Test func aFileWithOneBadLineImportsNothingAndCreatesNoFolder() throws {
    try withCLI { cli in
      let file = cli.folder.appendingPathComponent("items.jsonl")
      let good =
        #"{"fields":{"name":"Soap","quantity":3,"unit":"bar","notes":"","createdAt":1.0,"updatedAt":1.0}}"#
      let bad =
        #"{"fields":{"name":"Soup","quantity":-3,"unit":"bar","notes":"","createdAt":1.0,"updatedAt":1.0}}"#
      try Data([good, good, bad].joined(separator: "\n").utf8).write(to: file)
      let run = try cli.run(["import", file.path])
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.contains("Line 3 of '\(file.path)'"))
      #expect(run.standardError.contains("'-3'"))
      #expect(!FileManager.default.fileExists(atPath: cli.home.path))
    }
  }
}
