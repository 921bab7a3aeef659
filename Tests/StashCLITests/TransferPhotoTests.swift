import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// `stash export --format jsonl` carries the photos, and `stash import` of that file into an
/// empty device folder reproduces the inventory with them: never a photo reference without
/// its bytes, never a photo dropped without saying so.
@Suite struct TransferPhotoTests {
  private func other(_ cli: CLI) -> CLI {
    var other = cli
    other.home = cli.folder.appendingPathComponent("other")
    return other
  }

  private func photoField(_ cli: CLI, _ item: String) throws -> JSONValue? {
    try cli.run(["show", item, "--json"]).json()["fields"]?["photo"]
  }

  @Test func exportThenImportIntoAnEmptyFolderReproducesTheInventoryWithPhotos() throws {
    try withCLI { cli in
      let small = try cli.photo(named: "small.jpg", size: 2048, seed: 1)
      let large = try cli.photo(named: "large.jpg", size: 1_300_000, seed: 2)
      #expect(try cli.run(["location", "add", "basement"]).status == 0)
      for (name, photo) in [("Koleston 7/1", small), ("Blondor", large), ("Shared", small)] {
        let added = try cli.run([
          "add", name, "--quantity", "3", "--photo", photo, "--location", "basement",
        ])
        #expect(added.status == 0, "\(added)")
      }
      #expect(try cli.run(["add", "AA batteries", "--quantity", "12"]).status == 0)
      let file = cli.folder.appendingPathComponent("items.jsonl").path
      let export = try cli.run(["export", "--format", "jsonl", "--output", file])
      #expect(export.status == 0 && export.standardError.isEmpty, "\(export)")
      let text = try String(contentsOfFile: file, encoding: .utf8)
      #expect(
        text.split(separator: "\n").filter { $0.hasPrefix(#"{"photo""#) }.count == 4,
        "the small photo once, the large one in three parts")
      let target = other(cli)
      let imported = try target.run(["import", file, "--json"])
      #expect(imported.status == 0, "\(imported)")
      #expect(try imported.json()["photosLeftOff"]?.integer == 0)
      let before = try cli.run(["export", "--format", "jsonl"]).standardOutput
      let after = try target.run(["export", "--format", "jsonl"]).standardOutput
      // The same lines, but the location is another record (its id differs) on the new device.
      #expect(before.split(separator: "\n").count == after.split(separator: "\n").count)
      for name in ["Koleston 7/1", "Blondor", "Shared", "AA batteries"] {
        #expect(try photoField(target, name) == photoField(cli, name), "\(name)")
      }
      for photo in [small, large] {
        let digest = SHA256.hash([UInt8](try Data(contentsOf: URL(fileURLWithPath: photo))))
        let blob = target.home.appendingPathComponent("blobs/\(digest.hex)")
        #expect(try Data(contentsOf: blob) == Data(contentsOf: URL(fileURLWithPath: photo)))
      }
      let doctor = try target.run(["doctor"])
      #expect(doctor.status == 0, "\(doctor)")
    }
  }

  @Test func aPhotoWhoseBytesDoNotMatchIsRefusedAndNothingIsImported() throws {
    try withCLI { cli in
      let photo = try cli.photo(size: 4096)
      #expect(try cli.run(["add", "Soap", "--photo", photo]).status == 0)
      let exported = try cli.run(["export", "--format", "jsonl"]).standardOutput
      var lines = exported.split(separator: "\n").map(String.init)
      let index = try #require(lines.firstIndex { $0.hasPrefix(#"{"photo""#) })
      let other = String(repeating: "A", count: 5462) + "=="  // 4096 zero bytes, wrong digest
      lines[index] = lines[index].replacingOccurrences(
        of: #""data":"[^"]*""#, with: "\"data\":\"\(other)\"", options: .regularExpression)
      let file = cli.folder.appendingPathComponent("bad.jsonl")
      try Data(lines.joined(separator: "\n").utf8).write(to: file)
      let target = self.other(cli)
      let imported = try target.run(["import", file.path])
      #expect(imported.status == 1, "\(imported)")
      #expect(imported.standardError.contains("Line \(index + 1) of '\(file.path)'"), "\(imported)")
      #expect(imported.standardError.contains("do not match its SHA-256"), "\(imported)")
      #expect(!FileManager.default.fileExists(atPath: target.home.path), "nothing created")
      lines.remove(at: index)
      try Data(lines.joined(separator: "\n").utf8).write(to: file)
      let half = try target.run(["import", file.path, "--json"])
      #expect(half.status == 0, "a photo left out of the file is reported, not dangling")
      #expect(try half.json()["photosLeftOff"]?.integer == 1)
      #expect(try photoField(target, "Soap") == .null)
    }
  }

  @Test func aPhotoMissingHereIsExportedWithoutItsReferenceAndSaysSo() throws {
    try withCLI { cli in
      #expect(try cli.run(["add", "Soap", "--photo", try cli.photo()]).status == 0)
      let blobs = cli.home.appendingPathComponent("blobs")
      for name in try FileManager.default.contentsOfDirectory(atPath: blobs.path) {
        try FileManager.default.removeItem(at: blobs.appendingPathComponent(name))
      }
      let export = try cli.run(["export", "--format", "jsonl"])
      #expect(export.status == 0, "\(export)")
      #expect(
        export.standardError.contains("'Soap'")
          && export.standardError.contains("without its photo"))
      #expect(!export.standardOutput.contains(#"{"photo""#))
      #expect(export.standardOutput.contains(#""photo":null"#))
    }
  }
}
