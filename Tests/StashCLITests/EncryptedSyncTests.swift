import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// An encrypted shared folder, driven through the `stash` binary: two devices that hold the
/// key sync both ways; the folder shows no item name; whoever lacks the key can neither read
/// it nor change the inventory; a wrong key is refused; a tampered, relabelled, replayed or
/// moved segment is rejected.
@Suite struct EncryptedSyncTests {
  @Test func twoDevicesSyncBothWaysAndNoFileInTheFolderHoldsAnItemName() throws {
    try withCLI { cli in
      let pair = try EncryptedPair(cli)
      let (a, b) = (pair.a, pair.b)
      let photo = try cli.photo()
      #expect(
        try a.run([
          "add", "Koleston 7/1", "--quantity", "5", "--notes", "Behind the dryer",
          "--photo", photo,
        ]).status == 0)
      _ = try syncJSON(a)
      _ = try syncJSON(b)
      #expect(try quantityOf(b, "Koleston 7/1") == 5)
      #expect(try b.run(["consume", "Koleston 7/1"]).status == 0)
      #expect(try b.run(["add", "Wella Blondor", "--quantity", "2"]).status == 0)
      _ = try syncJSON(b)
      _ = try syncJSON(a)
      #expect(try quantityOf(a, "Koleston 7/1") == 4)
      #expect(try quantityOf(a, "Wella Blondor") == 2)
      #expect(try quantityOf(b, "Koleston 7/1") == 4)
      // The photo travelled, sealed, under a name that is not its SHA-256.
      let digest = SHA256.hash(Array(try Data(contentsOf: URL(fileURLWithPath: photo)))).hex
      let shown = try b.run(["show", "Koleston 7/1", "--json"]).json()
      #expect(shown["fields"]?["photo"]?["sha256"]?.text == digest, "\(shown)")
      #expect(filesUnder(b.home).contains { $0.path.hasSuffix(digest) }, "B lacks the photo")
      let files = filesUnder(pair.cloud)
      #expect(files.count >= 4, "\(files.map(\.path))")
      #expect(!files.contains { $0.path.contains(digest) })
      let photoBytes = try Data(contentsOf: URL(fileURLWithPath: photo))
      for file in files {
        for name in ["Koleston", "Wella", "Blondor", "dryer", "Behind"] {
          #expect(!holds(file.bytes, name), "'\(name)' is readable in \(file.path)")
        }
        #expect(file.bytes.range(of: photoBytes.prefix(64)) == nil, "\(file.path)")
      }
    }
  }

  @Test func aStashWithoutTheKeyReadsNothingAndItsFilesChangeNothing() throws {
    try withCLI { cli in
      let pair = try EncryptedPair(cli)
      let (a, b) = (pair.a, pair.b)
      try a.run(["add", "Koleston 7/1", "--quantity", "5"])
      _ = try syncJSON(a)
      _ = try syncJSON(b)
      // A third stash pointed at the folder without the key: refused, reads nothing.
      var c = cli
      c.home = cli.folder.appendingPathComponent("device-c")
      #expect(try c.run(["sync", "enable", "--cloud", pair.cloud.path]).status == 0)
      let refused = try c.run(["sync"])
      #expect(refused.status == 6, "\(refused)")
      #expect(refused.standardError.contains("encrypted"), "\(refused)")
      #expect(try itemNames(c).isEmpty)
      // It writes through folders of its own and copies its files in: plain segments, and
      // segments sealed with a key of its own.
      let plainFolder = try intruderSegments(cli, "plain", encrypted: false)
      let sealedFolder = try intruderSegments(cli, "sealed", encrypted: true)
      var dropped = [String]()
      for folder in [plainFolder, sealedFolder] {
        let devices = try FileManager.default.contentsOfDirectory(
          atPath: folder.appendingPathComponent("devices").path)
        for device in devices {
          let target = pair.cloud.appendingPathComponent("devices/" + device)
          try FileManager.default.copyItem(
            at: folder.appendingPathComponent("devices/" + device), to: target)
          dropped += segments(in: pair.cloud, of: device)
        }
      }
      #expect(dropped.count == 2, "\(dropped)")
      for device in [a, b] {
        let report = try syncJSON(device)
        let rejected = report["rejectedSegments"]?.elements.compactMap(\.text) ?? []
        for path in dropped {
          #expect(rejected.contains { $0.contains(path) }, "\(path) not rejected: \(report)")
        }
        #expect(try itemNames(device) == ["Koleston 7/1"])
        #expect(try quantityOf(device, "Koleston 7/1") == 5)
        let status = try device.run(["sync", "status"]).standardOutput
        #expect(status.contains("Would be rejected"), "\(status)")
      }
    }
  }

  /// A stash that writes "Intruder" items (and a consume of them) into a folder of its own,
  /// plain or encrypted with a key of its own; returns that folder.
  private func intruderSegments(_ cli: CLI, _ name: String, encrypted: Bool) throws -> URL {
    let folder = cli.folder.appendingPathComponent("intruder-" + name)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    var intruder = cli
    intruder.home = cli.folder.appendingPathComponent("intruder-home-" + name)
    let enable =
      ["sync", "enable", "--cloud", folder.path] + (encrypted ? ["--encrypt"] : [])
    #expect(try intruder.run(enable).status == 0)
    #expect(try intruder.run(["add", "Intruder " + name, "--quantity", "9"]).status == 0)
    _ = try syncJSON(intruder)
    return folder
  }

  @Test func aWrongKeyIsRefusedAndChangesNothing() throws {
    try withCLI { cli in
      let pair = try EncryptedPair(cli)
      try pair.a.run(["add", "Koleston 7/1"])
      _ = try syncJSON(pair.a)
      // Another folder's key: a valid sync key, not this folder's.
      let other = try EncryptedPair(cli, cloud: "other")
      var d = cli
      d.home = cli.folder.appendingPathComponent("device-d")
      try d.run(["add", "Toner"])
      let before = d.storeBytes()
      let wrong = try d.run([
        "sync", "enable", "--cloud", pair.cloud.path, "--key-file", other.keyFile.path,
      ])
      #expect(wrong.status == 6, "\(wrong)")
      #expect(wrong.standardError.contains("not a key of the shared folder"), "\(wrong)")
      #expect(!(wrong.standardOutput + wrong.standardError).contains(other.keyText))
      // A typo the sync key's check catches.
      var typo = Array(pair.keyText)
      typo[3] = typo[3] == "A" ? "B" : "A"
      let typoFile = cli.folder.appendingPathComponent("typo.txt")
      try Data(String(typo).utf8).write(to: typoFile)
      let mistyped = try d.run([
        "sync", "enable", "--cloud", pair.cloud.path, "--key-file", typoFile.path,
      ])
      #expect(mistyped.status == 6, "\(mistyped)")
      #expect(!(mistyped.standardOutput + mistyped.standardError).contains(String(typo)))
      #expect(!mistyped.standardError.contains(String(typo.prefix(11))), "\(mistyped)")
      // A missing key file.
      let missing = try d.run([
        "sync", "enable", "--cloud", pair.cloud.path, "--key-file", "/nonexistent/key",
      ])
      #expect(missing.status == 6, "\(missing)")
      #expect(d.storeBytes() == before)
      #expect(
        !FileManager.default.fileExists(atPath: d.home.appendingPathComponent("sync-keys").path))
      #expect(try d.run(["sync", "status", "--json"]).json()["on"] == .bool(false))
      // A new device with a wrong key: no device folder is made.
      var e = cli
      e.home = cli.folder.appendingPathComponent("device-e")
      let fresh = try e.run([
        "sync", "enable", "--cloud", pair.cloud.path, "--key-file", other.keyFile.path,
      ])
      #expect(fresh.status == 6, "\(fresh)")
      #expect(!FileManager.default.fileExists(atPath: e.home.path))
      // The key is never an argument.
      let onTheLine = try e.run([
        "sync", "enable", "--cloud", pair.cloud.path, "--key", pair.keyText,
      ])
      #expect(onTheLine.status == 2, "\(onTheLine)")
      #expect(!FileManager.default.fileExists(atPath: e.home.path))
    }
  }

  @Test func aTamperedRelabelledReplayedOrMovedSegmentIsRejectedAndAShortOneWaits() throws {
    try withCLI { cli in
      let pair = try EncryptedPair(cli)
      try pair.a.run(["add", "Koleston 7/1", "--quantity", "5"])
      _ = try syncJSON(pair.a)
      let aID = try #require(try pair.a.device(create: false).folder.deviceID).rawValue
      let original = try #require(segments(in: pair.cloud, of: aID).first)
      let bytes = try Data(contentsOf: pair.cloud.appendingPathComponent(original))
      func drop(_ data: Data, _ relative: String) throws {
        let url = pair.cloud.appendingPathComponent(relative)
        try FileManager.default.createDirectory(
          at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
      }
      var tampered = bytes
      tampered[tampered.count - 20] ^= 0x01
      let relabelled = Data(
        String(decoding: bytes, as: UTF8.self).replacingOccurrences(
          of: #""sequence":1,"#, with: #""sequence":3,"#
        ).utf8)
      #expect(relabelled != bytes)
      let stranger = DeviceID.make().rawValue
      try drop(tampered, "devices/\(aID)/000002.jsonl")
      try drop(relabelled, "devices/\(aID)/000003.jsonl")
      try drop(bytes, "devices/\(aID)/000004.jsonl")
      try drop(bytes, "devices/\(stranger)/000001.jsonl")
      try drop(bytes.prefix(bytes.count - 10), "devices/\(aID)/000005.jsonl")
      let report = try syncJSON(pair.b)
      let rejected = report["rejectedSegments"]?.elements.compactMap(\.text) ?? []
      for path in [
        "devices/\(aID)/000002.jsonl", "devices/\(aID)/000003.jsonl",
        "devices/\(aID)/000004.jsonl", "devices/\(stranger)/000001.jsonl",
      ] {
        #expect(rejected.contains { $0.contains(path) }, "\(path): \(report)")
      }
      let waiting = report["waiting"]?.elements.compactMap(\.text) ?? []
      #expect(waiting.contains { $0.contains("devices/\(aID)/000005.jsonl") }, "\(report)")
      #expect(!rejected.contains { $0.contains(original) }, "\(report)")
      #expect(try quantityOf(pair.b, "Koleston 7/1") == 5)
    }
  }

  @Test func statusShowsTheKeyIdAndNoOutputOrFileButTheKeyFileHoldsTheKey() throws {
    try withCLI { cli in
      let pair = try EncryptedPair(cli)
      try pair.a.run(["add", "Koleston 7/1"])
      var outputs = [Run]()
      for device in [pair.a, pair.b] {
        outputs.append(try device.run(["sync", "--json"]))
        outputs.append(try device.run(["sync"]))
        outputs.append(try device.run(["sync", "status"]))
        outputs.append(try device.run(["doctor"]))
        let status = try device.run(["sync", "status", "--json"])
        outputs.append(status)
        let encryption = try status.json()["encryption"]
        #expect(encryption?["key"]?.text == pair.keyID, "\(status)")
        #expect(try device.run(["sync", "status"]).standardOutput.contains(pair.keyID))
      }
      outputs.append(try pair.b.run(["sync", "add-key", "--key-file", pair.keyFile.path]))
      outputs.append(
        try pair.b.run(["sync", "add-key", "--key-file", pair.keyFile.path, "--json"]))
      // A rotation's --json output names the new key by id only; the key file holds it.
      let rotated = try pair.a.run(["sync", "rotate-key", "--json"])
      #expect(rotated.status == 0, "\(rotated)")
      outputs.append(rotated)
      let keyLines = try String(
        contentsOf: pair.a.home.appendingPathComponent("sync-keys"), encoding: .utf8
      ).split(separator: "\n").filter { !$0.hasPrefix("#") }
      let newKey = try #require(keyLines.last.map(String.init))
      #expect(newKey != pair.keyText)
      #expect(try rotated.json()["keyID"]?.text?.count == 16)
      outputs.append(try pair.a.run(["sync", "status", "--json"]))
      let squeezed = pair.keyText.replacingOccurrences(of: "-", with: "")
      for run in outputs {
        let all = run.standardOutput + run.standardError
        #expect(!all.contains(newKey), "\(run)")
        #expect(!all.contains(newKey.replacingOccurrences(of: "-", with: "")), "\(run)")
      }
      for run in outputs {
        let all = run.standardOutput + run.standardError
        #expect(!all.contains(pair.keyText) && !all.contains(squeezed), "\(run)")
        #expect(!all.contains(String(pair.keyText.prefix(17))), "\(run)")
      }
      for device in [pair.a, pair.b] {
        let keyFile = device.home.appendingPathComponent("sync-keys")
        let attributes = try FileManager.default.attributesOfItem(atPath: keyFile.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(holds(try Data(contentsOf: keyFile), pair.keyText))
        for file in filesUnder(device.home) where file.path != "sync-keys" {
          #expect(!holds(file.bytes, pair.keyText) && !holds(file.bytes, squeezed), "\(file.path)")
        }
      }
      for file in filesUnder(pair.cloud) {
        #expect(!holds(file.bytes, pair.keyText) && !holds(file.bytes, squeezed), "\(file.path)")
      }
    }
  }

  @Test func aDeviceJoinsWithTheKeyOnStandardInput() throws {
    try withCLI { cli in
      let pair = try EncryptedPair(cli)
      try pair.a.run(["add", "Koleston 7/1", "--quantity", "3"])
      _ = try syncJSON(pair.a)
      var c = cli
      c.home = cli.folder.appendingPathComponent("device-c")
      let joined = try c.shell(
        #""$0" sync enable --cloud '\#(pair.cloud.path)' --key-file - < '\#(pair.keyFile.path)'"#)
      #expect(joined.status == 0, "\(joined)")
      _ = try syncJSON(c)
      #expect(try quantityOf(c, "Koleston 7/1") == 3)
    }
  }
}
