import Foundation
import StashModel
import StashTestSupport
import Testing

/// The reproduction of issue 22, by hand: a save whose transaction crosses a 4 KiB page
/// boundary, cut by a power loss after the later page (ending in a valid commit line) reached
/// the disk but not the earlier one. The file then holds the old content, zeros up to the page
/// boundary, and the rest of the transaction. That save never reported success: every command
/// shows the old inventory and warns, `doctor --repair` sets the torn bytes aside and says
/// where, and everything works again.
@Suite struct PowerCutCLITests {
  private func bytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
  }

  /// `new` as a power cut leaves it when the page holding `old`'s end never reached the disk:
  /// `old`, zeros up to the next page boundary, then `new` from there to `end`.
  private func torn(_ old: [UInt8], _ new: [UInt8], end: Int? = nil) throws -> [UInt8] {
    let boundary = (old.count / 4096 + 1) * 4096
    let end = end ?? new.count
    try #require(end > boundary, "the save crosses a page boundary")
    return old + [UInt8](repeating: 0, count: boundary - old.count) + Array(new[boundary..<end])
  }

  private func quantity(_ cli: CLI, _ item: String) throws -> Int64? {
    let shown = try cli.run(["show", item, "--json"])
    guard shown.status == 0 else { return nil }
    return try shown.json()["quantity"]?.integer
  }

  private func sideFiles(_ cli: CLI, _ prefix: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: cli.home.path)
      .filter { $0.hasPrefix(prefix) }
  }

  /// Adds items until the store's size is about 4,000 bytes past a page boundary.
  private func fill(_ cli: CLI) throws {
    let store = cli.home.appendingPathComponent("default.store").path
    #expect(try cli.run(["add", "Soap", "--quantity", "5"]).status == 0)
    let start = try bytes(store).count
    #expect(
      try cli.run(["add", "Filler", "--notes", String(repeating: "x", count: 100)]).status == 0)
    let overhead = try bytes(store).count - start - 100
    let room = (4000 - (try bytes(store).count % 4096) - overhead + 4096) % 4096
    #expect(
      try cli.run(["add", "Padding", "--notes", String(repeating: "y", count: room)]).status == 0)
    let size = try bytes(store).count % 4096
    try #require((3900...4050).contains(size), "the store ends \(size) bytes past a boundary")
  }

  @Test func aConsumeTornAcrossAPageShowsTheOldInventoryUntilRepairSetsItAside() throws {
    try withCLI { cli in
      try fill(cli)
      let store = cli.home.appendingPathComponent("default.store").path
      let old = try bytes(store)
      #expect(try cli.run(["consume", "Soap", "2"]).status == 0)
      let state = try torn(old, try bytes(store))
      try Data(state).write(to: URL(fileURLWithPath: store))

      let before = try folderContents(cli.home)
      for arguments in [["list"], ["show", "Soap", "--json"], ["sync", "status"], ["conflicts"]] {
        let run = try cli.run(arguments)
        #expect(run.status == 0, "\(arguments): \(run)")
        #expect(run.standardError.contains(store), "\(arguments): \(run)")
        #expect(run.standardError.contains("doctor --repair"), "\(arguments): \(run)")
        #expect(try folderContents(cli.home) == before, "\(arguments) changed the folder")
      }
      #expect(try quantity(cli, "Soap") == 5, "the consume never reported success")
      let doctor = try cli.run(["doctor"])
      #expect(doctor.status == 4, "\(doctor)")
      #expect(try folderContents(cli.home) == before, "doctor changed the folder")

      let repair = try cli.run(["doctor", "--repair"])
      #expect(repair.status == 0, "\(repair)")
      let side = try #require(try sideFiles(cli, "default.store.damaged-").first, "\(repair)")
      #expect(repair.standardOutput.contains(side), "\(repair)")
      #expect(try bytes(cli.home.appendingPathComponent(side).path) == Array(state[old.count...]))
      #expect(try bytes(store) == old)
      let again = try cli.run(["doctor"])
      #expect(again.status == 0, "\(again)")
      let list = try cli.run(["list"])
      #expect(list.status == 0 && list.standardError.isEmpty, "\(list)")
      #expect(try cli.run(["consume", "Soap", "2"]).status == 0)
      #expect(try quantity(cli, "Soap") == 3)
    }
  }

  @Test func theNextSaveAfterATornConsumeSetsItAsideAndSaysWhere() throws {
    try withCLI { cli in
      try fill(cli)
      let store = cli.home.appendingPathComponent("default.store").path
      let old = try bytes(store)
      #expect(try cli.run(["consume", "Soap", "2"]).status == 0)
      try Data(try torn(old, try bytes(store))).write(to: URL(fileURLWithPath: store))
      let restock = try cli.run(["restock", "Soap", "1"])
      #expect(restock.status == 0, "\(restock)")
      let side = try #require(try sideFiles(cli, "default.store.damaged-").first, "\(restock)")
      #expect(restock.standardError.contains(side), "\(restock)")
      #expect(try quantity(cli, "Soap") == 6)
    }
  }

  /// Device A, whose sync imports device B's segment of 80 new items, in one transaction of
  /// A's mirror that a power cut tears. Returns both devices; A's folder and the shared folder
  /// are as the power cut left them.
  private func tornImport(_ cli: CLI) throws -> (a: CLI, b: CLI) {
    let cloud = cli.folder.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    var a = cli
    a.home = cli.folder.appendingPathComponent("device-a")
    var b = cli
    b.home = cli.folder.appendingPathComponent("device-b")
    #expect(try a.run(["add", "Soap", "--quantity", "5"]).status == 0)
    for device in [a, b] {
      #expect(try device.run(["sync", "enable", "--cloud", cloud.path]).status == 0)
      #expect(try device.run(["sync"]).status == 0)
    }
    let csv = cli.folder.appendingPathComponent("items.csv")
    let lines = ["name,quantity"] + (1...80).map { "Brush \($0),\($0)" }
    try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: csv)
    #expect(try b.run(["import", csv.path]).status == 0)
    #expect(try b.run(["sync"]).status == 0)

    // What A's folder and the shared folder hold before A's sync, to put back afterwards.
    let saved = cli.folder.appendingPathComponent("saved")
    for name in ["device-a", "cloud"] {
      try FileManager.default.copyItem(
        at: cli.folder.appendingPathComponent(name), to: saved.appendingPathComponent(name))
    }
    let mirror = a.home.appendingPathComponent("cloud.store").path
    let old = try bytes(mirror)
    let synced = try a.run(["sync"])
    #expect(synced.status == 0, "\(synced)")
    let new = try bytes(mirror)
    // The import is the first transaction after `old`: it ends with the first commit line.
    let text = String(decoding: new[old.count...], as: UTF8.self)
    let commit = try #require(text.range(of: #","commit":"#), "\(synced)")
    let newline = try #require(text[commit.upperBound...].firstIndex(of: "\n"))
    let end = old.count + text.utf8.distance(from: text.startIndex, to: newline) + 1
    let state = try torn(old, new, end: end)
    // Put back into the same folders (a power cut leaves the device folder where it was; a
    // new folder would be a restored backup, which takes an identity of its own).
    let files = FileManager.default
    for name in ["device-a", "cloud"] {
      let place = cli.folder.appendingPathComponent(name)
      for entry in try files.contentsOfDirectory(atPath: place.path) {
        try files.removeItem(at: place.appendingPathComponent(entry))
      }
      let source = saved.appendingPathComponent(name)
      for entry in try files.contentsOfDirectory(atPath: source.path) {
        try files.copyItem(
          at: source.appendingPathComponent(entry), to: place.appendingPathComponent(entry))
      }
    }
    try Data(state).write(to: URL(fileURLWithPath: mirror))
    return (a, b)
  }

  @Test func aTornImportIntoTheMirrorIsSetAsideByRepairAndSyncComesBack() throws {
    try withCLI { cli in
      let (a, _) = try tornImport(cli)
      let mirror = a.home.appendingPathComponent("cloud.store").path
      let list = try a.run(["list"])
      #expect(list.status == 0, "the inventory works whatever the mirror's state: \(list)")
      let status = try a.run(["sync", "status"])
      #expect(status.status == 0, "\(status)")
      #expect(status.standardError.contains(mirror), "\(status)")
      let doctor = try a.run(["doctor"])
      #expect(doctor.status == 4, "\(doctor)")

      let repair = try a.run(["doctor", "--repair"])
      #expect(repair.status == 0, "\(repair)")
      let side = try #require(try sideFiles(a, "cloud.store.damaged-").first, "\(repair)")
      #expect(repair.standardOutput.contains(side), "\(repair)")
      #expect(repair.standardOutput.contains("the next sync"), "how sync comes back: \(repair)")
      #expect(try a.run(["doctor"]).status == 0)
      let synced = try a.run(["sync"])
      #expect(synced.status == 0, "\(synced)")
      #expect(try quantity(a, "Brush 80") == 80, "the import is read again")
      #expect(try a.run(["sync"]).status == 0)
    }
  }

  @Test func aSyncAfterATornImportSetsItAsideItselfAndImportsAgain() throws {
    try withCLI { cli in
      let (a, b) = try tornImport(cli)
      let synced = try a.run(["sync"])
      #expect(synced.status == 0, "\(synced)")
      let side = try #require(try sideFiles(a, "cloud.store.damaged-").first, "\(synced)")
      #expect(synced.standardError.contains(side), "\(synced)")
      #expect(try quantity(a, "Brush 17") == 17)
      #expect(try a.run(["consume", "Brush 17", "1"]).status == 0)
      for device in [a, b, a, b] { #expect(try device.run(["sync"]).status == 0) }
      #expect(try quantity(b, "Brush 17") == 16, "A's move reaches B once")
    }
  }
}
