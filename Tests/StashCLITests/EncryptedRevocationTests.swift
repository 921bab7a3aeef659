import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// Revoking a lost device: a rotation on a remaining device, the new key entered on the
/// others. The lost device keeps what it had, reads nothing written after, and what it
/// writes with the old key is rejected by every device that holds the new one.
@Suite struct EncryptedRevocationTests {
  @Test func aLostDeviceCanNeitherReadNewFilesNorChangeTheInventoryAfterARotation() throws {
    try withCLI { cli in
      let pair = try EncryptedPair(cli)
      let (a, b) = (pair.a, pair.b)
      var lost = cli
      lost.home = cli.folder.appendingPathComponent("device-lost")
      #expect(
        try lost.run([
          "sync", "enable", "--cloud", pair.cloud.path, "--key-file", pair.keyFile.path,
        ])
        .status == 0)
      try a.run(["add", "Koleston 7/1", "--quantity", "5"])
      for device in [a, b, lost] { _ = try syncJSON(device) }
      #expect(try quantityOf(lost, "Koleston 7/1") == 5)

      // The phone is lost: A rotates, B is given the new key.
      let rotated = try a.run(["sync", "rotate-key"])
      let newKey = try #require(EncryptedPair.syncKey(in: rotated.standardOutput))
      let newID = try #require(EncryptedPair.keyID(in: rotated.standardOutput))
      let newKeyFile = cli.folder.appendingPathComponent("new-key.txt")
      try Data((newKey + "\n").utf8).write(to: newKeyFile)
      #expect(try b.run(["sync", "add-key", "--key-file", newKeyFile.path]).status == 0)
      try a.run(["add", "Wella Blondor", "--quantity", "2"])
      for device in [a, b] { _ = try syncJSON(device) }
      #expect(try quantityOf(b, "Wella Blondor") == 2)

      // The lost device reads nothing new (it keeps what it had).
      let blind = try syncJSON(lost)
      #expect(blind["missingKeys"]?.elements.map(\.text) == [newID], "\(blind)")
      #expect(try quantityOf(lost, "Wella Blondor") == nil)
      #expect(try quantityOf(lost, "Koleston 7/1") == 5)
      // Whoever holds it writes with the old key anyway (a stash that ignores the rotation).
      #expect(try lost.run(["consume", "Koleston 7/1", "4"]).status == 0)
      let announcement = pair.cloud.appendingPathComponent("keys/\(newID).json")
      let hidden = cli.folder.appendingPathComponent("hidden.json")
      try FileManager.default.moveItem(at: announcement, to: hidden)
      let wrote = try syncJSON(lost)
      try FileManager.default.moveItem(at: hidden, to: announcement)
      let written = try #require(wrote["segment"]?.text, "\(wrote)")
      for device in [a, b] {
        let report = try syncJSON(device)
        let rejected = report["rejectedSegments"]?.elements.compactMap(\.text) ?? []
        #expect(rejected.contains { $0.contains(written) && $0.contains("retired") }, "\(report)")
        #expect(try quantityOf(device, "Koleston 7/1") == 5)
      }
    }
  }
}
