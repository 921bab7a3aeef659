import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// Moving from a plain shared folder to a new encrypted one, as the README says, loses no
/// move: both devices had moves they had not synced when the move began.
@Suite struct EncryptedMoveTests {
  @Test func aPlainFolderMovedToAnEncryptedOneLosesNoMoveOfEitherDevice() throws {
    try withCLI { cli in
      let plain = cli.folder.appendingPathComponent("plain")
      let encrypted = cli.folder.appendingPathComponent("encrypted")
      for folder in [plain, encrypted] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
      }
      var a = cli
      a.home = cli.folder.appendingPathComponent("device-a")
      var b = cli
      b.home = cli.folder.appendingPathComponent("device-b")
      for device in [a, b] {
        #expect(try device.run(["sync", "enable", "--cloud", plain.path]).status == 0)
      }
      try a.run(["add", "Koleston 7/1", "--quantity", "10"])
      try b.run(["add", "Wella Blondor", "--quantity", "4"])
      for device in [a, b, a] { _ = try syncJSON(device) }
      // Moves neither device has synced.
      #expect(try a.run(["consume", "Koleston 7/1", "2"]).status == 0)
      #expect(try a.run(["restock", "Wella Blondor", "1"]).status == 0)
      #expect(try b.run(["restock", "Koleston 7/1", "5"]).status == 0)
      #expect(try b.run(["consume", "Koleston 7/1"]).status == 0)
      #expect(try b.run(["consume", "Wella Blondor", "3"]).status == 0)
      try b.run(["add", "Toner", "--quantity", "1"])

      // The sequence the README gives.
      let enabled = try a.run(["sync", "enable", "--cloud", encrypted.path, "--encrypt"])
      #expect(enabled.status == 0, "\(enabled)")
      let key = try #require(EncryptedPair.syncKey(in: enabled.standardOutput))
      let keyFile = cli.folder.appendingPathComponent("key.txt")
      try Data((key + "\n").utf8).write(to: keyFile)
      _ = try syncJSON(a)
      let joined = try b.run([
        "sync", "enable", "--cloud", encrypted.path, "--key-file", keyFile.path,
      ])
      #expect(joined.status == 0, "\(joined)")
      _ = try syncJSON(b)
      _ = try syncJSON(a)

      for device in [a, b] {
        #expect(try quantityOf(device, "Koleston 7/1") == 10 - 2 + 5 - 1)
        #expect(try quantityOf(device, "Wella Blondor") == 4 + 1 - 3)
        #expect(try quantityOf(device, "Toner") == 1)
        #expect(try device.run(["conflicts", "--json"]).json().elements.isEmpty)
        #expect(try device.run(["sync", "verify"]).status == 0, "\(device.home.lastPathComponent)")
      }
      // Nothing readable went to the new folder; a new device reads it all with the key.
      for file in filesUnder(encrypted) {
        for name in ["Koleston", "Wella", "Toner"] {
          #expect(!holds(file.bytes, name), "'\(name)' is readable in \(file.path)")
        }
      }
      var c = cli
      c.home = cli.folder.appendingPathComponent("device-c")
      #expect(
        try c.run(["sync", "enable", "--cloud", encrypted.path, "--key-file", keyFile.path])
          .status == 0)
      _ = try syncJSON(c)
      #expect(try quantityOf(c, "Koleston 7/1") == 12)
      #expect(try quantityOf(c, "Wella Blondor") == 2)
    }
  }
}
