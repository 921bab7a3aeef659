import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// `stash sync verify` exits 5 whenever this device and the shared folder do not hold the
/// same data as far as this device can know, and names why, in words and in `--json`: a file
/// still arriving, a file rejected, another zone, an open conflict, a photo the folder lacks
/// (the last two in `ZoneRaceTests` and `PhotoHealTests`).
@Suite struct VerifyNeverWrongTests {
  let views = SharedFolderViews()

  /// `mac` exported an item; `phone` synced it: both in sync.
  func pair(_ cli: CLI) throws -> (mac: CLI, phone: CLI, cloud: URL) {
    let devices = try views.devices(cli, ["mac", "phone"])
    #expect(try devices[0].run(["add", "Koleston 7/1", "--quantity", "5"]).status == 0)
    for device in devices + devices { try views.sync(device) }
    for device in devices { #expect(try device.run(["sync", "verify"]).status == 0) }
    return (devices[0], devices[1], cli.folder.appendingPathComponent("cloud"))
  }

  func write(_ bytes: [UInt8], _ relative: String, in cloud: URL) throws {
    let url = cloud.appendingPathComponent(relative)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(bytes).write(to: url)
  }

  @Test func aSegmentStillArrivingMakesVerifyDiffer() throws {
    try withCLI { cli in
      let (mac, phone, cloud) = try pair(cli)
      #expect(try phone.run(["consume", "Koleston 7/1"]).status == 0)
      // The mac's copy of the phone's new segment has not fully arrived.
      let segment = try #require(try views.sync(phone)["segment"]?.text)
      let path = cloud.path + "/" + segment
      let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
      try bytes.prefix(bytes.count - 10).write(to: URL(fileURLWithPath: path))
      let verify = try mac.run(["sync", "verify"])
      #expect(verify.status == 5, "\(verify)")
      #expect(verify.standardOutput.contains(segment), "\(verify)")
      let json = try mac.run(["sync", "verify", "--json"]).json()
      #expect(json["inSync"] == .bool(false))
      #expect(json["waiting"]?.elements.count == 1, "\(json)")
    }
  }

  @Test func aRejectedSegmentMakesVerifyDiffer() throws {
    try withCLI { cli in
      let (mac, _, cloud) = try pair(cli)
      let stranger = "devices/\(DeviceID.make().rawValue)/000001.jsonl"
      try write(Array("{\"segment\":\"garbage\"}\nnot json\n".utf8), stranger, in: cloud)
      let verify = try mac.run(["sync", "verify"])
      #expect(verify.status == 5, "\(verify)")
      #expect(verify.standardOutput.contains(stranger), "\(verify)")
      let json = try mac.run(["sync", "verify", "--json"]).json()
      #expect(json["inSync"] == .bool(false))
      let rejected = json["rejected"]?.elements ?? []
      #expect(rejected.first?["file"]?.text == stranger, "\(json)")
      // Syncing does not make it go away: it is rejected on every sync, and verify says so.
      try views.sync(mac)
      #expect(try mac.run(["sync", "verify"]).status == 5)
    }
  }

  @Test func anOpenConflictMakesVerifyDiffer() throws {
    try withCLI { cli in
      let (mac, phone, _) = try pair(cli)
      #expect(try mac.run(["edit", "Koleston 7/1", "--notes", "mac"]).status == 0)
      #expect(try phone.run(["edit", "Koleston 7/1", "--notes", "phone"]).status == 0)
      for device in [mac, phone, mac, phone] { try views.sync(device) }
      for device in [mac, phone] where try !views.openConflicts(device).isEmpty {
        let verify = try device.run(["sync", "verify"])
        #expect(verify.status == 5, "\(verify)")
        #expect(verify.standardOutput.contains("open-conflict"), "\(verify)")
      }
    }
  }
}
