import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// Lines with a valid checksum can still lie: every line is checked on open, and a row that
/// cannot be trusted is set aside (never shown, edited or synced) or refuses the store, naming
/// the file and the line. Nothing here may crash, and nothing damaged may reach another device.
@Suite struct DamagedLineTests {
  private func storePath(_ cli: CLI) -> String {
    cli.home.appendingPathComponent("default.store").path
  }

  /// The store's lines.
  private func lines(_ cli: CLI) throws -> [String] {
    try String(contentsOfFile: storePath(cli), encoding: .utf8).split(separator: "\n").map(
      String.init)
  }

  /// Appends one committed transaction of `operations` (JSON objects), framed and checksummed
  /// exactly as a store writes them, as a hand edit or another tool could.
  private func appendTransaction(_ cli: CLI, _ operations: [String]) throws {
    let last = try #require(try lines(cli).last)
    let sequence = try #require(try JSONParser.parse(last)["tx"]?.integer) + 1
    var text = ""
    for operation in operations {
      text += framed("\"tx\":\(sequence),\"op\":\(operation)}")
    }
    text += framed("\"tx\":\(sequence),\"commit\":\(operations.count)}")
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: storePath(cli)))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(text.utf8))
    try handle.close()
  }

  private func framed(_ body: String) -> String {
    let hex = String(CRC32.checksum(Array(body.utf8)), radix: 16)
    return "{\"crc\":\"\(String(repeating: "0", count: 8 - hex.count) + hex)\"," + body + "\n"
  }

  /// A `put` of an item, with its fields as the store writes them.
  private func put(
    row: String, id: String = RecordID.make().rawValue, hash: String? = nil,
    name: String = "Rinse", quantity: String = "5", notes: String = ""
  ) -> String {
    let hash = hash ?? String(repeating: "ab", count: 32)
    return """
      {"put":{"row":\(row),"model":"item","id":"\(id)","hash":"\(hash)","fields":{"name":"\(name)",\
      "brand":null,"quantity":\(quantity),"unit":"","notes":"\(notes)","photo":null,\
      "locationID":null,"lowStockThreshold":null,"barcode":null,"createdAt":1764441600.0,\
      "updatedAt":1764441600.0}}}
      """
  }

  /// `cli` with sync on through a fresh shared folder; returns the folder.
  private func enableSync(_ cli: CLI) throws -> URL {
    let cloud = cli.folder.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    #expect(try cli.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
    return cloud
  }

  /// Everything the shared folder holds, as one text.
  private func sharedText(_ cloud: URL) throws -> String {
    try folderContents(cloud).values.map { String(decoding: $0, as: UTF8.self) }.joined()
  }

  @Test func theLastRowNumberIsSetAsideAndNothingCrashes() throws {
    try withCLI { cli in
      #expect(try cli.run(["add", "Soap"]).status == 0)
      try appendTransaction(cli, [put(row: "9223372036854775807")])
      let list = try cli.run(["list"])
      #expect(list.status == 0, "\(list)")
      #expect(list.standardOutput.contains("Soap"))
      #expect(!list.standardOutput.contains("Rinse"))
      #expect(list.standardError.contains("1 damaged row"), "\(list)")
      #expect(list.standardError.contains("line 6"), "\(list)")
      let added = try cli.run(["add", "Shampoo"])
      #expect(added.status == 0, "\(added)")
      let doctor = try cli.run(["doctor"])
      #expect(doctor.status == 4, "\(doctor)")
      #expect(doctor.standardOutput.contains("Row 9223372036854775807"), "\(doctor)")
      #expect(doctor.standardOutput.contains("line 6"), "\(doctor)")
      let repair = try cli.run(["doctor", "--repair"])
      #expect(repair.status == 0, "\(repair)")
      #expect(repair.standardOutput.contains("damaged-rows-"), "\(repair)")
      let after = try cli.run(["list"])
      #expect(after.standardError.isEmpty, "\(after)")
      #expect(after.standardOutput.contains("Shampoo") && after.standardOutput.contains("Soap"))
    }
  }

  @Test func aNegativeQuantityIsSetAsideAndNeverSynced() throws {
    try withCLI { cli in
      let cloud = try enableSync(cli)
      #expect(try cli.run(["add", "Soap"]).status == 0)
      let id = RecordID.make().rawValue
      try appendTransaction(cli, [put(row: "2", id: id, quantity: "-5")])
      let list = try cli.run(["list", "--json"])
      #expect(list.status == 0)
      #expect(try list.json().elements.count == 1, "\(list)")
      #expect(list.standardError.contains("damaged row"), "\(list)")
      let sync = try cli.run(["sync"])
      #expect(sync.status == 0, "\(sync)")
      #expect(try sharedText(cloud).contains("Soap"), "the sound row travels")
      #expect(try !sharedText(cloud).contains(id), "the damaged row never does")
      let doctor = try cli.run(["doctor"])
      #expect(doctor.status == 4, "\(doctor)")
      #expect(doctor.standardOutput.contains("negative"), "\(doctor)")
    }
  }

  @Test func aRowWhoseHashDoesNotMatchItsFieldsIsNeverSynced() throws {
    try withCLI { cli in
      let cloud = try enableSync(cli)
      #expect(try cli.run(["add", "Soap"]).status == 0)
      let soap = try #require(try lines(cli).first { $0.contains("\"Soap\"") })
      let object = try JSONParser.parse(soap)["op"]?["put"]
      let id = try #require(object?["id"]?.text)
      let hash = try #require(object?["hash"]?.text)
      // The same row and hash, with the name changed: an edit made in the file, not by stash.
      try appendTransaction(cli, [put(row: "1", id: id, hash: hash, name: "Soup")])
      let sync = try cli.run(["sync"])
      // The pass stopped on damage: exit 4, as every command (README, "exit"), said once.
      #expect(sync.status == 4, "\(sync)")
      #expect(sync.standardOutput.contains("The reconcile pass failed ("), "\(sync)")
      #expect(
        sync.standardError.components(separatedBy: "does not match its hash").count == 2,
        "\(sync)")
      #expect(sync.standardError.contains(storePath(cli)), "\(sync)")
      #expect(try !sharedText(cloud).contains("Soup"))
      #expect(try cli.run(["doctor"]).status == 4)
      #expect(try cli.run(["doctor", "--repair"]).status == 0)
      let again = try cli.run(["sync"])
      #expect(again.status == 0, "\(again)")
      #expect(try !sharedText(cloud).contains("Soup"))
    }
  }

  @Test func notesLongerThanAnItemMayHoldAreSetAside() throws {
    try withCLI { cli in
      #expect(try cli.run(["add", "Soap"]).status == 0)
      try appendTransaction(cli, [put(row: "2", notes: String(repeating: "n", count: 20_000))])
      let list = try cli.run(["list"])
      #expect(list.status == 0)
      #expect(!list.standardOutput.contains("Rinse"))
      #expect(list.standardError.contains("damaged row"), "\(list)")
      #expect(try cli.run(["doctor"]).status == 4)
    }
  }

  @Test func aLineLongerThanALineMayBeRefusesTheStoreNamingTheLine() throws {
    try withCLI { cli in
      #expect(try cli.run(["add", "Soap"]).status == 0)
      try appendTransaction(
        cli, [put(row: "2", notes: String(repeating: "n", count: 3 << 20))])
      try appendTransaction(cli, [put(row: "3", name: "Later")])
      let before = cli.storeBytes()
      for arguments in [["list"], ["add", "Shampoo"], ["doctor"]] {
        let run = try cli.run(arguments)
        #expect(run.status == 4, "\(arguments): \(run)")
        #expect(
          (run.standardError + run.standardOutput).contains("damaged at line 6"),
          "\(arguments): \(run)")
      }
      #expect(cli.storeBytes() == before)
    }
  }
}
