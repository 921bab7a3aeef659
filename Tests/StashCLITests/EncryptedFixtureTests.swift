import Foundation
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The committed encrypted folder (`Fixtures/formats/encrypted-folder`, Fixtures/README.md
/// section 7) pins the format: a sealed zone file, a rotation's key file, sealed segments
/// under both keys and a sealed photo, written by the code of that format. A new device reads
/// all of it with the device's key file; with the first key alone it proves the rotation and
/// waits for the new key.
@Suite struct EncryptedFixtureTests {
  /// A device of the fixture's folder (a copy: a sync may write), joined with `keyFile`.
  private func join(_ cli: CLI, keyFile: String) throws -> CLI {
    let cloud = cli.folder.appendingPathComponent("cloud")
    try FileManager.default.copyItem(
      at: Fixtures.url("formats/encrypted-folder/cloud"), to: cloud)
    let keys = Fixtures.url("formats/encrypted-folder/" + keyFile).path
    let joined = try cli.run(["sync", "enable", "--cloud", cloud.path, "--key-file", keys])
    #expect(joined.status == 0, "\(joined)")
    return cli
  }

  @Test func theFixtureFolderIsReadWholeWithBothKeys() throws {
    try withCLI { cli in
      let device = try join(cli, keyFile: "sync-keys.txt")
      let report = try syncJSON(device)
      #expect(report["segmentsRead"]?.integer == 3, "\(report)")
      #expect(report["rejectedSegments"]?.elements.isEmpty == true, "\(report)")
      #expect(report["waiting"]?.elements.isEmpty == true, "\(report)")
      #expect(try quantityOf(device, "Koleston 7/1") == 4)
      #expect(try quantityOf(device, "Wella Blondor") == 2)
      let shown = try device.run(["show", "Koleston 7/1", "--json"]).json()
      #expect(shown["fields"]?["notes"]?.text == "Behind the dryer")
      let photo = try Data(contentsOf: Fixtures.url("formats/encrypted-folder/photo.bin"))
      let sha = SHA256.hash([UInt8](photo)).hex
      #expect(shown["fields"]?["photo"]?["sha256"]?.text == sha)
      let copied = device.home.appendingPathComponent("blobs/" + sha)
      #expect(try Data(contentsOf: copied) == photo)
      let status = try device.run(["sync", "status", "--json"]).json()
      #expect(
        status["encryption"]?["keys"]?.elements.map(\.text) == [
          "91ad353c0d505f7b", "fadd57deb90c7a4c",
        ])
    }
  }

  @Test func theFirstKeyAloneProvesTheRotationAndWaitsForItsKey() throws {
    try withCLI { cli in
      let device = try join(cli, keyFile: "first-key.txt")
      let report = try syncJSON(device)
      #expect(report["missingKeys"]?.elements.map(\.text) == ["fadd57deb90c7a4c"], "\(report)")
      #expect(try quantityOf(device, "Koleston 7/1") == nil)
    }
  }
}
