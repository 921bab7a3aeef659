import Foundation
import Stash
import StashModel
import Testing

/// `stash export --output FILE` writes a new file (never over an existing one), and
/// `stash import FILE --format F` reads it whatever its name.
@Suite struct ExportOutputTests {
  @Test(arguments: ["csv", "jsonl"])
  func anExportWrittenToAFileImportsByItsNamedFormat(format: String) throws {
    try withCLI { cli in
      let add = try cli.run([
        "add", "Koleston, \"7/1\" 🎨", "--quantity", "5", "--notes", "Line one,\n\"two\"",
      ])
      #expect(add.status == 0, "\(add)")
      let file = cli.folder.appendingPathComponent("items.data")
      let export = try cli.run(["export", "--format", format, "--output", file.path])
      #expect(export.status == 0 && export.standardOutput.isEmpty, "\(export)")
      var other = cli
      other.home = cli.folder.appendingPathComponent("other")
      let imported = try other.run(["import", file.path, "--format", format])
      #expect(imported.status == 0, "\(imported)")
      let items = try other.device(create: false).items()
      #expect(items.map(\.name) == ["Koleston, \"7/1\" 🎨"])
      #expect(items.map(\.notes) == ["Line one,\n\"two\""])
    }
  }

  @Test func anExistingOutputFileIsRefusedAndLeftAsItWas() throws {
    try withCLI { cli in
      _ = try cli.run(["add", "Soap"])
      let file = cli.folder.appendingPathComponent("keep.txt")
      try Data("mine".utf8).write(to: file)
      let export = try cli.run(["export", "--format", "csv", "--output", file.path])
      #expect(export.status == 1)
      #expect(export.standardError.contains("'\(file.path)'"))
      #expect(try String(contentsOf: file, encoding: .utf8) == "mine")
    }
  }
}
