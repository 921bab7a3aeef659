import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// Seed 003's legacy JSON blob, at its fixed name in the device folder, is imported by the
/// first command that opens the folder (a reading one too), once, saying so on stderr; a file
/// that cannot be imported imports nothing, says why on every run and blocks nothing.
@Suite struct LegacyMigrationTests {
  private func legacyPath(_ cli: CLI) -> String {
    cli.home.appendingPathComponent(DeviceFolder.legacyFileName).path
  }

  private func placeLegacy(_ cli: CLI, _ bytes: Data) throws {
    try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
    try bytes.write(to: URL(fileURLWithPath: legacyPath(cli)))
  }

  @Test func theFirstListImportsTheBlobAndSaysSoThenNeverAgain() throws {
    try withCLI { cli in
      let bytes = try Data(contentsOf: Fixtures.url("legacy/inventory-json-blob.json"))
      try placeLegacy(cli, bytes)
      let first = try cli.run(["list"])
      #expect(first.status == 0, "\(first)")
      #expect(first.standardOutput.contains("Koleston 7/1"), "\(first)")
      #expect(first.standardOutput.contains("AA batteries"), "\(first)")
      #expect(
        first.standardError.contains(
          "Imported 2 items from the legacy file '\(legacyPath(cli))'"), "\(first)")
      let second = try cli.run(["list", "--json"])
      #expect(second.status == 0 && !second.standardError.contains("Imported"), "\(second)")
      #expect(try second.json().elements.count == 2, "\(second)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: legacyPath(cli))) == bytes)
    }
  }

  @Test func aOneRecordCommandOnAnExistingFolderImportsFirst() throws {
    try withCLI { cli in
      #expect(try cli.run(["add", "Soap", "--quantity", "2"]).status == 0)
      try placeLegacy(
        cli, try Data(contentsOf: Fixtures.url("legacy/inventory-json-blob.json")))
      let stores = cli.storeBytes()
      let doctor = try cli.run(["doctor"])
      #expect(doctor.status == 0 && doctor.standardOutput.contains("waits to be imported"))
      #expect(cli.storeBytes() == stores, "doctor changes nothing")
      let consume = try cli.run(["consume", "Koleston 7/1"])
      #expect(consume.status == 0, "\(consume)")
      #expect(consume.standardError.contains("Imported 2 items"), "\(consume)")
      let shown = try cli.run(["show", "Koleston 7/1", "--json"]).json()
      #expect(shown["quantity"]?.integer == 4)
      #expect(try cli.run(["show", "Soap", "--json"]).json()["quantity"]?.integer == 2)
    }
  }

  @Test(arguments: [
    (#"[{"name": "Koleston 7/1", "quantity": 5}, {"quantity": -3}]"#, "entry 2 has no 'name'"),
    (#"[{"name": "Koleston 7/1", "quantity": 1.5}]"#, "entry 1 has a 'quantity' that is not"),
    (#"[{"name": "Koleston 7/1", "quantity": true}]"#, "entry 1 has a 'quantity' that is not"),
    (#"[{"name": "Koleston 7/1", "colour": "red"}]"#, "entry 1 has 'colour'"),
    (#"[{"name": "Koleston 7/1", "quantity": -3}]"#, "entry 1 (Koleston 7/1)"),
    (#"{"name": "Koleston 7/1"}"#, "not a JSON array"),
    ("[1, 2", "it is not JSON"),
  ])
  func aMalformedBlobImportsNothingSaysWhyAndBlocksNothing(_ text: String, _ reason: String)
    throws
  {
    try withCLI { cli in
      #expect(try cli.run(["add", "Soap"]).status == 0)
      try placeLegacy(cli, Data(text.utf8))
      let stores = cli.storeBytes()
      for _ in 0..<2 {
        let list = try cli.run(["list"])
        #expect(list.status == 0, "\(list)")
        #expect(list.standardOutput.contains("Soap") && !list.standardOutput.contains("Koleston"))
        #expect(
          list.standardError.contains("The legacy file '\(legacyPath(cli))' cannot be imported"),
          "\(list)")
        #expect(list.standardError.contains(reason), "\(list)")
        #expect(list.standardError.contains("nothing was imported"), "\(list)")
        #expect(cli.storeBytes() == stores, "a refused import changes no store")
      }
      let doctor = try cli.run(["doctor"])
      #expect(doctor.status == 0 && doctor.standardOutput.contains("cannot be imported"))
      #expect(cli.storeBytes() == stores, "doctor imports nothing")
      #expect(try cli.run(["add", "Rinse"]).status == 0, "other commands work")
      #expect(try Data(contentsOf: URL(fileURLWithPath: legacyPath(cli))) == Data(text.utf8))
    }
  }

  @Test func aFIFOOrAHugeSparseFileIsRefusedWithoutHanging() throws {
    try withCLI { cli in
      #expect(try cli.run(["add", "Soap"]).status == 0)
      #expect(mkfifo(legacyPath(cli), 0o600) == 0)
      let fifo = try cli.run(["list"])
      #expect(fifo.status == 0 && fifo.standardError.contains("not a regular file"), "\(fifo)")
      try FileManager.default.removeItem(atPath: legacyPath(cli))
      #expect(FileManager.default.createFile(atPath: legacyPath(cli), contents: nil))
      let handle = try #require(FileHandle(forWritingAtPath: legacyPath(cli)))
      try handle.truncate(atOffset: 1 << 34)
      try handle.close()
      let huge = try cli.run(["list"])
      #expect(huge.status == 0 && huge.standardError.contains("MiB"), "\(huge)")
      #expect(huge.standardOutput.contains("Soap"))
    }
  }

  @Test func initOnAFolderWithABlobCreatesItWithItsNameThenImports() throws {
    try withCLI { cli in
      try placeLegacy(
        cli, try Data(contentsOf: Fixtures.url("legacy/inventory-json-blob.json")))
      let created = try cli.run(["init", "--name", "salon"])
      #expect(created.status == 0 && created.standardError.contains("Imported 2 items"))
      let status = try cli.run(["sync", "status", "--json"]).json()
      #expect(status["device"]?["name"]?.text == "salon")
      #expect(try cli.run(["list", "--json"]).json().elements.count == 2)
    }
  }
}
