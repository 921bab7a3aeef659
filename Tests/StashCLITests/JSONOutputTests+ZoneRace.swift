import Foundation
import StashModel
import StashTestSupport
import Testing

extension JSONOutputTests {
  /// The `--json` shapes of a zone race and of a photo the shared folder lacks, filled in:
  /// `sync`, `sync status` and `sync verify` on a device that sees another zone and holds a
  /// photo its folder lost, then `sync join-zone`.
  @Test func zoneRaceAndLostPhotoOutputsMatchTheirGoldenFiles() throws {
    try withCLI { cli in
      var devices = [CLI]()
      let photo = try cli.photo(size: 4096, seed: 3)
      for name in ["salon-mac", "salon-iphone"] {
        let device = try views.devices(cli, [name], ownViews: true)[0]
        #expect(try device.run(["add", name + " tube", "--photo", photo]).status == 0)
        try views.sync(device)
        devices.append(device)
      }
      let (mac, phone) = (devices[0], devices[1])
      try views.spread(from: devices, to: devices)
      let blobs = views.view(mac).appendingPathComponent("blobs")
      for name in try FileManager.default.contentsOfDirectory(atPath: blobs.path) {
        try FileManager.default.removeItem(at: blobs.appendingPathComponent(name))
      }
      let zone = try #require(phone.run(["sync", "status", "--json"]).json()["zone"]?.text)
      var failures = [String]()
      for (name, arguments) in [
        ("sync-status-zone-race", ["sync", "status", "--json"]),
        ("sync-verify-zone-race", ["sync", "verify", "--json"]),
        ("sync-zone-race", ["sync", "--json"]),
        ("sync-join-zone", ["sync", "join-zone", zone, "--json"]),
      ] {
        let run = try mac.run(arguments)
        let normalized = Self.normalize(run.standardOutput, folder: cli.folder.path)
        let url = Fixtures.url("cli/\(name).json")
        if Fixtures.isRecording {
          try Data(normalized.utf8).write(to: url)
          continue
        }
        let expected = (try? String(contentsOf: url, encoding: .utf8)) ?? "(missing)"
        if expected != normalized { failures.append("\(name): \(normalized)") }
      }
      if Fixtures.isRecording {
        Issue.record("Recorded the zone race's JSON outputs under Fixtures/cli; review the diff")
      }
      #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
  }
}
