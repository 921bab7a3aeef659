import Foundation
import Stash
import StashBase
import StashModel
import Testing

/// `stash doctor` reports damage with exit 4, never crashes on it, and tells it apart from
/// things that only need a look.
@Suite struct DoctorTests {
  private func storePath(_ cli: CLI) -> String {
    cli.home.appendingPathComponent("default.store").path
  }

  @Test func aSoundFolderIsReportedWellWithExitZero() throws {
    try withCLI { cli in
      try cli.device().addItem(Item(name: "Soap", quantity: 5, createdAt: epoch))
      let run = try cli.run(["doctor"])
      #expect(run.status == 0, "\(run)")
      #expect(run.standardOutput.contains("1 item"))
      #expect(run.standardOutput.contains("No damage found"))
    }
  }

  @Test func aFolderWithoutAStoreHasNothingToCheckAndIsNotCreated() throws {
    try withCLI { cli in
      let run = try cli.run(["doctor"])
      #expect(run.status == 0)
      #expect(run.standardOutput.contains("nothing to check"))
      #expect(!FileManager.default.fileExists(atPath: cli.home.path))
    }
  }

  @Test func damageBeforeTheLastCommitIsReportedWithExitFourAndNothingChanges() throws {
    try withCLI { cli in
      let device = try cli.device()
      try device.addItem(Item(name: "Soap", quantity: 5, createdAt: epoch))
      try device.consume("Soap")
      var lines = try String(contentsOfFile: storePath(cli), encoding: .utf8)
        .split(separator: "\n", omittingEmptySubsequences: false)
      lines[3] = Substring(lines[3].replacingOccurrences(of: "Soap", with: "Soup"))
      try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: storePath(cli)))
      let before = cli.storeBytes()

      let doctor = try cli.run(["doctor"])
      #expect(doctor.status == 4, "\(doctor)")
      #expect(doctor.standardOutput.contains("damaged at line 4"))
      let json = try cli.run(["doctor", "--json"])
      #expect(json.status == 4)
      #expect(try json.json()["damaged"] == .bool(true))
      for arguments in [["list"], ["consume", "Soap"], ["add", "Shampoo"]] {
        let run = try cli.run(arguments)
        #expect(run.status == 4, "\(arguments): \(run)")
        #expect(run.standardError.contains("damaged at line 4"))
      }
      #expect(cli.storeBytes() == before)
    }
  }

  @Test func aMissingPhotoIsDamage() throws {
    try withCLI { cli in
      let photo = try cli.photo()
      #expect(try cli.run(["add", "Soap", "--photo", photo]).status == 0)
      let item = try cli.device(create: false).item("Soap")
      let digest = try #require(item.photo?.digest.hex)
      try FileManager.default.removeItem(
        at: cli.home.appendingPathComponent("blobs").appendingPathComponent(digest))
      let run = try cli.run(["doctor"])
      #expect(run.status == 4, "\(run)")
      #expect(run.standardOutput.contains("'\(digest.prefix(12))'"))
      #expect(run.standardOutput.contains("missing"))
    }
  }

  @Test func aTornTailIsReportedWithoutFailingAndDroppedByTheNextSave() throws {
    try withCLI { cli in
      try cli.device().addItem(Item(name: "Soap", quantity: 5, createdAt: epoch))
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: storePath(cli)))
      try handle.seekToEnd()
      try handle.write(contentsOf: Data(#"{"crc":"00000000","tx":9,"op":{"remo"#.utf8))
      try handle.close()
      let run = try cli.run(["doctor", "--json"])
      #expect(run.status == 0, "\(run)")
      let findings = try run.json()["findings"]?.elements ?? []
      #expect(
        findings.contains { $0["message"]?.text?.contains("unfinished write") == true }, "\(run)")
      #expect(try cli.run(["consume", "Soap"]).status == 0)
      #expect(try cli.device(create: false).item("Soap").quantity == 4)
    }
  }

  @Test func openConflictsAndDanglingReferencesAreNotesNotDamage() throws {
    try withCLI { cli in
      #expect(try cli.run(["location", "add", "shop"]).status == 0)
      #expect(try cli.run(["add", "Soap", "--location", "shop"]).status == 0)
      #expect(try cli.run(["location", "delete", "shop"]).status == 0)
      let run = try cli.run(["doctor", "--json"])
      #expect(run.status == 0, "\(run)")
      let findings = try run.json()["findings"]?.elements ?? []
      #expect(findings.map { $0["severity"]?.text } == ["note"])
      #expect(findings.first?["area"]?.text == "references")
    }
  }
}
