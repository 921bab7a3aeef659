import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// Sizes are checked before anything is read or written, with a clear message: a huge field
/// can neither be saved nor imported, and a file that claims to be huge is never read whole.
@Suite struct LimitTests {
  /// A sparse file of `size` bytes: it claims the size without using the disk.
  private func sparseFile(_ cli: CLI, named name: String, size: UInt64) throws -> String {
    let path = cli.folder.appendingPathComponent(name).path
    #expect(FileManager.default.createFile(atPath: path, contents: Data("x".utf8)))
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.truncate(atOffset: size)
    try handle.close()
    return path
  }

  @Test func anImportLineWithAHugeFieldIsRefusedNamingTheLine() throws {
    try withCLI { cli in
      let path = cli.folder.appendingPathComponent("items.jsonl").path
      func line(_ name: String, notes: String = "") -> String {
        #"{"fields":{"name":""# + name + #"","brand":null,"quantity":1,"unit":"","notes":""#
          + notes + #"","photo":null,"locationID":null,"lowStockThreshold":null,"barcode":null,"#
          + #""createdAt":1764441600.0,"updatedAt":1764441600.0}}"# + "\n"
      }
      let text = line("Soap") + line("Rinse", notes: String(repeating: "n", count: 3 << 20))
      try Data(text.utf8).write(to: URL(fileURLWithPath: path))
      let run = try cli.run(["import", path])
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.contains("Line 2 of '\(path)' is longer than the 1 MiB"), "\(run)")
      #expect(!FileManager.default.fileExists(atPath: cli.home.path))
    }
  }

  @Test func anImportFileThatClaimsATerabyteIsRefusedUnread() throws {
    try withCLI { cli in
      #expect(try cli.run(["add", "Soap"]).status == 0)
      let before = cli.storeBytes()
      let path = try sparseFile(cli, named: "huge.jsonl", size: 1 << 40)
      let run = try cli.run(["import", path])
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.contains("MiB an import may be"), "\(run)")
      #expect(cli.storeBytes() == before)
    }
  }

  @Test func aPhotoThatClaimsATerabyteIsRefusedUnread() throws {
    try withCLI { cli in
      let path = try sparseFile(cli, named: "huge.jpg", size: 1 << 40)
      let run = try cli.run(["add", "Soap", "--photo", path])
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.contains("MiB a photo may be"), "\(run)")
    }
  }
}
