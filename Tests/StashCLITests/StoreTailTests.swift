import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// What is after a store's last commit: a torn write (a crash in the middle of a save) is
/// dropped quietly, but only by a command that writes; a damaged last commit (a complete line
/// whose checksum fails) is reported loudly by every command and set aside only by a write
/// that says so, or by `stash doctor --repair`. Reading never changes a store file.
@Suite struct StoreTailTests {
  /// The commands that only read; none of them may change a file of the folder.
  static let readingCommands: [[String]] = [
    ["list"], ["list", "--json"], ["list", "--low-stock"], ["show", "Soap"],
    ["show", "Soap", "--json"], ["conflicts"], ["conflicts", "--json"], ["sync", "status"],
    ["sync", "status", "--json"], ["location", "list"], ["reminder", "list"],
    ["export", "--format", "csv"], ["export", "--format", "jsonl"], ["doctor"],
    ["doctor", "--json"],
  ]

  private func storePath(_ cli: CLI, _ name: String = "default.store") -> String {
    cli.home.appendingPathComponent(name).path
  }

  /// Flips one bit inside the last line of a file (not its newline, not its checksum).
  private func damageLastLine(_ path: String) throws {
    var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    let lastLineStart = (bytes.dropLast().lastIndex(of: UInt8(ascii: "\n")) ?? -1) + 1
    bytes[lastLineStart + 22] ^= 0x01
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  /// Appends the start of a line, as a write that stopped in the middle would leave it.
  private func tearTail(_ path: String) throws {
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(#"{"crc":"00000000","tx":9,"op":{"remo"#.utf8))
    try handle.close()
  }

  /// A soap, 5 then consumed to 4: the consume is the last commit.
  private func soapConsumedOnce(_ cli: CLI) throws {
    #expect(try cli.run(["add", "Soap", "--quantity", "5"]).status == 0)
    let consumed = try cli.run(["consume", "Soap"])
    #expect(consumed.status == 0, "\(consumed)")
  }

  private func quantity(_ run: Run) throws -> Int64? {
    try run.json()["quantity"]?.integer
  }

  @Test func aDamagedLastCommitIsReportedByEveryReadingCommandAndNothingIsChanged() throws {
    try withCLI { cli in
      try soapConsumedOnce(cli)
      try damageLastLine(storePath(cli))
      let before = try folderContents(cli.home)
      for arguments in Self.readingCommands {
        let run = try cli.run(arguments)
        #expect(try folderContents(cli.home) == before, "\(arguments) changed the folder")
        #expect(run.standardError.contains("damaged"), "\(arguments): \(run)")
        #expect(run.standardError.contains(storePath(cli)), "\(arguments): \(run)")
        #expect(run.standardError.contains("doctor --repair"), "\(arguments): \(run)")
        let expected: Int32 = arguments.first == "doctor" ? 4 : 0
        #expect(run.status == expected, "\(arguments): \(run)")
      }
      // A reader shows the last sound commit: the consume is not shown, and not dropped.
      #expect(try quantity(cli.run(["show", "Soap", "--json"])) == 5)
    }
  }

  @Test func aWriteSetsADamagedLastCommitAsideAndSaysWhere() throws {
    try withCLI { cli in
      try soapConsumedOnce(cli)
      let damagedBytes = try Data(contentsOf: URL(fileURLWithPath: storePath(cli)))
      try damageLastLine(storePath(cli))
      let damaged = [UInt8](try Data(contentsOf: URL(fileURLWithPath: storePath(cli))))
      let run = try cli.run(["restock", "Soap", "2"])
      #expect(run.status == 0, "\(run)")
      #expect(run.standardError.contains("Set aside"), "\(run)")
      let sideFile = try #require(
        try FileManager.default.contentsOfDirectory(atPath: cli.home.path)
          .first { $0.hasPrefix("default.store.damaged-") }, "\(run)")
      #expect(run.standardError.contains(sideFile), "\(run)")
      let kept = [UInt8](try Data(contentsOf: cli.home.appendingPathComponent(sideFile)))
      #expect(Array(damaged.suffix(kept.count)) == kept, "the damaged bytes are kept as they were")
      #expect(kept.count < damagedBytes.count)
      #expect(try quantity(cli.run(["show", "Soap", "--json"])) == 7)
      let after = try cli.run(["list"])
      #expect(!after.standardError.contains("damaged"), "\(after)")
      // Doctor still points at the side file, but the folder is sound again.
      let doctor = try cli.run(["doctor"])
      #expect(doctor.status == 0, "\(doctor)")
      #expect(doctor.standardOutput.contains(sideFile), "\(doctor)")
    }
  }

  @Test func doctorRepairSetsADamagedLastCommitAside() throws {
    try withCLI { cli in
      try soapConsumedOnce(cli)
      try damageLastLine(storePath(cli))
      let repair = try cli.run(["doctor", "--repair"])
      #expect(repair.status == 0, "\(repair)")
      #expect(repair.standardOutput.contains("Set aside"), "\(repair)")
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: cli.home.path)
          .contains { $0.hasPrefix("default.store.damaged-") })
      let list = try cli.run(["list"])
      #expect(list.status == 0)
      #expect(list.standardError.isEmpty, "\(list)")
      #expect(try cli.run(["doctor"]).status == 0)
    }
  }

  @Test func aTornTailIsIgnoredByReadersAndDroppedByTheNextWrite() throws {
    try withCLI { cli in
      try soapConsumedOnce(cli)
      try tearTail(storePath(cli))
      let before = try folderContents(cli.home)
      for arguments in Self.readingCommands {
        let run = try cli.run(arguments)
        #expect(run.status == 0, "\(arguments): \(run)")
        #expect(try folderContents(cli.home) == before, "\(arguments) changed the folder")
        #expect(!run.standardError.contains("damaged"), "\(arguments): \(run)")
      }
      #expect(try quantity(cli.run(["show", "Soap", "--json"])) == 4)
      #expect(try cli.run(["consume", "Soap"]).status == 0)
      #expect(try quantity(cli.run(["show", "Soap", "--json"])) == 3)
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: cli.home.path)
          .contains { $0.hasPrefix("default.store.torn-") })
    }
  }

  @Test func aDamagedLastCommitOfTheMirrorIsReportedAndNotChangedByReaders() throws {
    try withCLI { cli in
      let cloud = cli.folder.appendingPathComponent("cloud")
      try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
      #expect(try cli.run(["add", "Soap"]).status == 0)
      #expect(try cli.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      let synced = try cli.run(["sync"])
      #expect(synced.status == 0, "\(synced)")
      try damageLastLine(storePath(cli, "cloud.store"))
      let before = try folderContents(cli.home)
      for arguments in [["sync", "status"], ["conflicts"], ["list"], ["doctor"]] {
        let run = try cli.run(arguments)
        #expect(try folderContents(cli.home) == before, "\(arguments) changed the folder")
        // Only commands that sync or check open the mirror; `list` and `conflicts` never read
        // it, so that the inventory works whatever the mirror's state.
        if arguments == ["sync", "status"] || arguments == ["doctor"] {
          #expect(run.standardError.contains(storePath(cli, "cloud.store")), "\(arguments): \(run)")
        }
      }
      #expect(try cli.run(["doctor"]).status == 4)
    }
  }
}

/// Every file under `folder` (but the lock file, which readers may create) with its bytes.
func folderContents(_ folder: URL) throws -> [String: Data] {
  var contents = [String: Data]()
  let files = FileManager.default
  guard let walker = files.enumerator(atPath: folder.path) else { return [:] }
  for case let name as String in walker where name != "lock" {
    var isFolder: ObjCBool = false
    let path = folder.appendingPathComponent(name).path
    if files.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue {
      contents[name] = try Data(contentsOf: URL(fileURLWithPath: path))
    }
  }
  return contents
}
