import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// Keys over time: a rotation (the other device lacks the new key until it is entered, and
/// keeps working meanwhile), photos healed in an encrypted folder, and the move of a plain
/// folder to an encrypted one with moves made on both devices before it.
@Suite struct EncryptedKeyTests {
  @Test func aRotationThenTheNewKeyEnteredOnTheOtherDeviceKeepsBothInSync() throws {
    try withCLI { cli in
      let pair = try EncryptedPair(cli)
      let (a, b) = (pair.a, pair.b)
      try a.run(["add", "Koleston 7/1", "--quantity", "5"])
      _ = try syncJSON(a)
      _ = try syncJSON(b)
      let rotated = try a.run(["sync", "rotate-key"])
      #expect(rotated.status == 0, "\(rotated)")
      let newKey = try #require(EncryptedPair.syncKey(in: rotated.standardOutput))
      let newID = try #require(EncryptedPair.keyID(in: rotated.standardOutput))
      #expect(newKey != pair.keyText && newID != pair.keyID)
      // B's last sync was clean and sealed, and only keys/ changed: it still notices.
      let noticed = try syncJSON(b)
      #expect(noticed["missingKeys"]?.elements.map(\.text) == [newID], "\(noticed)")
      #expect(try a.run(["consume", "Koleston 7/1", "2"]).status == 0)
      let exported = try syncJSON(a)
      let segment = try #require(exported["segment"]?.text)
      let header = try String(
        contentsOf: pair.cloud.appendingPathComponent(segment), encoding: .isoLatin1)
      #expect(header.contains(#""key":"\#(newID)""#), "new files use the new key")

      // B lacks the key: it says so, reads and writes nothing there, and keeps working here.
      let lacking = try syncJSON(b)
      #expect(lacking["missingKeys"]?.elements.map(\.text) == [newID], "\(lacking)")
      let said = try b.run(["sync"])
      #expect(said.standardOutput.contains("lacks the shared folder's key '\(newID)'"), "\(said)")
      let status = try b.run(["sync", "status", "--json"]).json()
      #expect(
        status["encryption"]?["missingKeys"]?.elements.map(\.text) == [newID], "\(status)")
      #expect(try quantityOf(b, "Koleston 7/1") == 5)
      #expect(try b.run(["restock", "Koleston 7/1", "3"]).status == 0)
      #expect(try quantityOf(b, "Koleston 7/1") == 8)
      let stopped = try syncJSON(b)
      #expect(stopped["exportStopped"]?.text?.contains(newID) == true, "\(stopped)")
      _ = try syncJSON(a)
      #expect(try quantityOf(a, "Koleston 7/1") == 3)

      // The new key entered on B: both in sync, both ways, nothing lost.
      let newKeyFile = cli.folder.appendingPathComponent("new-key.txt")
      try Data((newKey + "\n").utf8).write(to: newKeyFile)
      let added = try b.run(["sync", "add-key", "--key-file", newKeyFile.path])
      #expect(added.status == 0, "\(added)")
      let caughtUp = try syncJSON(b)
      #expect(caughtUp["missingKeys"] == nil, "\(caughtUp)")
      #expect(caughtUp["exportStopped"] == .null, "\(caughtUp)")
      #expect(try quantityOf(b, "Koleston 7/1") == 6)
      _ = try syncJSON(a)
      #expect(try quantityOf(a, "Koleston 7/1") == 6)
      #expect(try b.run(["consume", "Koleston 7/1"]).status == 0)
      _ = try syncJSON(b)
      _ = try syncJSON(a)
      #expect(try quantityOf(a, "Koleston 7/1") == 5)
      #expect(try quantityOf(b, "Koleston 7/1") == 5)
      let bID = try #require(try b.device(create: false).folder.deviceID).rawValue
      let newest = try #require(segments(in: pair.cloud, of: bID).last)
      let bHeader = try String(
        contentsOf: pair.cloud.appendingPathComponent(newest), encoding: .isoLatin1)
      #expect(bHeader.contains(#""key":"\#(newID)""#), "B seals with the new key")

      // A device given only the old key reads nothing and says it lacks the new one; one
      // given a device's whole key file reads everything.
      var old = cli
      old.home = cli.folder.appendingPathComponent("device-old")
      #expect(
        try old.run(["sync", "enable", "--cloud", pair.cloud.path, "--key-file", pair.keyFile.path])
          .status == 0)
      let partial = try syncJSON(old)
      #expect(partial["missingKeys"]?.elements.map(\.text) == [newID], "\(partial)")
      #expect(try quantityOf(old, "Koleston 7/1") == nil)
      var full = cli
      full.home = cli.folder.appendingPathComponent("device-full")
      let keys = a.home.appendingPathComponent("sync-keys").path
      #expect(
        try full.run(["sync", "enable", "--cloud", pair.cloud.path, "--key-file", keys]).status
          == 0)
      _ = try syncJSON(full)
      #expect(try quantityOf(full, "Koleston 7/1") == 5)
    }
  }

  enum Mangling: String, CaseIterable {
    case removed, cutShort, garbled, lengthened
  }

  @Test(arguments: Mangling.allCases)
  func aSealedPhotoTheFolderLacksIsPublishedAgain(_ how: Mangling) throws {
    try withCLI { cli in
      let pair = try EncryptedPair(cli)
      let (a, b) = (pair.a, pair.b)
      let photo = try cli.photo(size: 40_000, seed: 11)
      let original = try Data(contentsOf: URL(fileURLWithPath: photo))
      let sha = SHA256.hash([UInt8](original)).hex
      #expect(try a.run(["add", "Koleston 7/1", "--photo", photo]).status == 0)
      _ = try syncJSON(a)
      let blobs = filesUnder(pair.cloud).filter { $0.path.hasPrefix("blobs/") }
      #expect(blobs.count == 1, "\(blobs.map(\.path))")
      let shared = pair.cloud.appendingPathComponent(try #require(blobs.first).path)
      #expect(!shared.path.hasSuffix(sha))
      let sealed = try Data(contentsOf: shared)
      #expect(sealed.count == original.count + 48)
      switch how {
      case .removed: try FileManager.default.removeItem(at: shared)
      case .cutShort: try sealed.prefix(sealed.count / 2).write(to: shared)
      case .garbled: try Data(repeating: 0, count: sealed.count).write(to: shared)
      case .lengthened: try (sealed + Data("more".utf8)).write(to: shared)
      }
      #expect(try a.run(["sync", "verify"]).status == 5, "\(how)")
      let waiting = try syncJSON(b)
      let notes =
        (waiting["waiting"]?.elements ?? []) + (waiting["rejectedSegments"]?.elements ?? [])
      #expect(!notes.isEmpty, "\(waiting)")
      let healed = try syncJSON(a)
      #expect(healed["photosPublished"]?.elements.map(\.text) == [sha], "\(how): \(healed)")
      #expect(try Data(contentsOf: shared).count == original.count + 48)
      let completed = try syncJSON(b)
      #expect(completed["waiting"]?.elements.isEmpty == true, "\(completed)")
      let arrived = b.home.appendingPathComponent("blobs/\(sha)")
      #expect(try Data(contentsOf: arrived) == original)
    }
  }
}
