import Foundation
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// Two devices that each turned sync on with their own empty copy of the shared folder and
/// synced before the sync tool first ran: each made a zone of its own. Once the tool puts
/// both copies together, every device says so on every sync, in `sync status`, `sync verify`
/// (exit 5) and `doctor`, naming the other zone's devices, and never advises removing another
/// device's files; `stash sync join-zone ZONE` merges the two once a person confirms they are
/// one inventory, and nothing merges by itself.
@Suite struct ZoneRaceTests {
  let views = SharedFolderViews()

  /// What the sync tool makes of the two `zone.json` files when it puts the copies together.
  enum ZoneFiles {
    /// Each copy keeps its own (Unison with the conflict left open).
    case eachKeepsItsOwn
    /// The mac's wins everywhere; the phone's is kept as a conflicted copy (Syncthing,
    /// Dropbox).
    case macsWins
    /// Both are renamed (`zone.json..path1`, `zone.json..path2`: rclone bisync).
    case bothRenamed
  }

  /// `mac` and `phone`, each with one item, each synced through its own view of the folder
  /// before the views met: two zones. Then the sync tool copies every segment both ways and
  /// treats the two `zone.json` files as `zoneFiles` says.
  func race(_ cli: CLI, zoneFiles: ZoneFiles) throws -> (mac: CLI, phone: CLI) {
    var devices = [CLI]()
    for (name, item) in [("mac", "Koleston 7/1"), ("phone", "Blondor")] {
      let made = try views.devices(cli, [name], ownViews: true)[0]
      #expect(try made.run(["add", item, "--quantity", "10"]).status == 0)
      try views.sync(made)
      devices.append(made)
    }
    let (mac, phone) = (devices[0], devices[1])
    let macZone = views.view(mac).appendingPathComponent("zone.json")
    let phoneZone = views.view(phone).appendingPathComponent("zone.json")
    let files = FileManager.default
    switch zoneFiles {
    case .eachKeepsItsOwn:
      break
    case .macsWins:
      try files.moveItem(
        at: phoneZone,
        to: views.view(phone).appendingPathComponent("zone.sync-conflict-20251129-phone.json"))
      try files.copyItem(at: macZone, to: phoneZone)
    case .bothRenamed:
      for (index, device) in devices.enumerated() {
        let view = views.view(device)
        let renamed = view.appendingPathComponent("zone.json..path\(index + 1)")
        try files.moveItem(at: view.appendingPathComponent("zone.json"), to: renamed)
      }
    }
    try views.spread(from: devices, to: devices)
    return (mac, phone)
  }

  func zone(of device: CLI) throws -> String {
    try #require(device.run(["sync", "status", "--json"]).json()["zone"]?.text)
  }

  func names(_ device: CLI) throws -> Set<String> {
    Set(
      try device.run(["list", "--json"]).json().elements.compactMap { $0["fields"]?["name"]?.text })
  }

  @Test func aZoneRaceIsReportedOnEverySyncNamingTheOtherDevices() throws {
    try withCLI { cli in
      let (mac, phone) = try race(cli, zoneFiles: .eachKeepsItsOwn)
      let phoneZone = try zone(of: phone)
      for round in 0..<3 {
        let run = try mac.run(["sync"])
        #expect(run.status == 0, "\(run)")
        let text = run.standardOutput
        #expect(text.contains(phoneZone.prefix(8)) && text.contains("phone"), "\(round): \(run)")
        #expect(text.contains("stash sync join-zone \(phoneZone.prefix(8))"), "\(run)")
        #expect(!text.contains("remove it"), "never advises deleting another device's files")
        let json = try mac.run(["sync", "--json"]).json()
        let others = json["otherZones"]?.elements ?? []
        #expect(others.count == 1 && others.first?["zone"]?.text == phoneZone, "\(json)")
        let devices = others.first?["devices"]?.elements ?? []
        #expect(devices.map { $0["name"]?.text } == ["phone"], "\(json)")
        #expect(devices.first?["lastWrote"]?.text != nil, "\(json)")
      }
      // Two inventories in one folder never merge by themselves.
      #expect(try names(mac) == ["Koleston 7/1"])
      #expect(try names(phone) == ["Blondor"])
    }
  }

  @Test func statusVerifyAndDoctorNameTheOtherZone() throws {
    try withCLI { cli in
      let (mac, phone) = try race(cli, zoneFiles: .eachKeepsItsOwn)
      for device in [mac, phone, mac, phone] { try views.sync(device) }
      let phoneZone = try zone(of: phone)
      let status = try mac.run(["sync", "status"])
      #expect(status.standardOutput.contains(phoneZone.prefix(8)), "\(status)")
      #expect(status.standardOutput.contains("join-zone"), "\(status)")
      let statusJSON = try mac.run(["sync", "status", "--json"]).json()
      let zones = statusJSON["otherZones"]?.elements ?? []
      #expect(zones.first?["zone"]?.text == phoneZone, "\(statusJSON)")
      let devices = statusJSON["devices"]?.elements ?? []
      #expect(!devices.contains { $0["name"]?.text == "phone" }, "not a device of this zone")

      let verify = try mac.run(["sync", "verify"])
      #expect(verify.status == 5, "\(verify)")
      #expect(verify.standardOutput.contains(phoneZone.prefix(8)), "\(verify)")
      let verifyJSON = try mac.run(["sync", "verify", "--json"])
      #expect(verifyJSON.status == 5)
      #expect(try verifyJSON.json()["inSync"] == .bool(false))
      #expect(try verifyJSON.json()["otherZones"]?.elements.count == 1, "\(verifyJSON)")

      let doctor = try mac.run(["doctor", "--json"])
      let findings = try doctor.json()["findings"]?.elements ?? []
      let race = findings.first { $0["message"]?.text?.contains(phoneZone.prefix(8)) == true }
      #expect(race?["area"]?.text == "sync", "\(doctor)")
      #expect(race?["message"]?.text?.contains("join-zone") == true, "\(doctor)")
    }
  }

  /// The sync tool kept the mac's `zone.json` everywhere: the phone's folder now names the
  /// mac's zone. That is the same race, not another account: the phone goes on syncing its own
  /// zone and says so.
  @Test func aZoneFileOfTheOtherZoneIsTheRaceNotAnAccountChange() throws {
    try withCLI { cli in
      let (mac, phone) = try race(cli, zoneFiles: .macsWins)
      let macZone = try zone(of: mac)
      let run = try phone.run(["sync"])
      #expect(run.status == 0, "\(run)")
      #expect(run.standardOutput.contains(macZone.prefix(8)), "\(run)")
      #expect(run.standardOutput.contains("mac"), "\(run)")
      #expect(try phone.run(["sync", "verify"]).status == 5)
      // The conflicted copy of the zone file is left alone.
      let kept = views.view(phone).appendingPathComponent("zone.sync-conflict-20251129-phone.json")
      #expect(FileManager.default.fileExists(atPath: kept.path))
    }
  }

  /// rclone bisync renamed both `zone.json` files: each device publishes its own again (never
  /// replacing one that arrived meanwhile) and goes on.
  @Test func aZoneFileTheSyncToolRenamedIsPublishedAgain() throws {
    try withCLI { cli in
      let (mac, phone) = try race(cli, zoneFiles: .bothRenamed)
      let macZone = try zone(of: mac)
      let run = try mac.run(["sync"])
      #expect(run.status == 0, "\(run)")
      let file = views.view(mac).appendingPathComponent("zone.json")
      let text = try String(contentsOf: file, encoding: .utf8)
      #expect(text.contains(macZone), "\(text)")
      #expect(try mac.run(["sync"]).standardOutput.contains("phone"), "the race is reported")
      #expect(try phone.run(["sync"]).status == 0)
    }
  }

  @Test func joiningTheOtherZoneMergesBothInventoriesWithoutLoss() throws {
    try withCLI { cli in
      let (mac, phone) = try race(cli, zoneFiles: .eachKeepsItsOwn)
      for device in [mac, phone] { try views.sync(device) }
      // Stock moves on both sides while split.
      #expect(try mac.run(["consume", "Koleston 7/1", "2"]).status == 0)
      #expect(try phone.run(["restock", "Blondor", "5"]).status == 0)
      for device in [mac, phone] { try views.sync(device) }
      let phoneZone = try zone(of: phone)
      let macStores = mac.storeBytes()
      let unknown = try mac.run(["sync", "join-zone", "0123abcd"])
      #expect(unknown.status == 1, "\(unknown)")
      #expect(unknown.standardError.contains(phoneZone.prefix(8)), "names the zones there")
      let own = try mac.run(["sync", "join-zone", try zone(of: mac)])
      #expect(own.status == 1, "\(own)")
      #expect(try mac.run(["sync", "join-zone"]).status == 2)
      #expect(mac.storeBytes() == macStores, "a refused join changes nothing")

      let joined = try mac.run(["sync", "join-zone", String(phoneZone.prefix(8)), "--json"])
      #expect(joined.status == 0, "\(joined)")
      #expect(try joined.json()["zone"]?.text == phoneZone, "\(joined)")
      #expect(try zone(of: mac) == phoneZone)
      for _ in 0..<2 {
        for device in [mac, phone] { try views.sync(device) }
        try views.spread(from: [mac, phone], to: [mac, phone])
      }
      for device in [mac, phone] { try views.sync(device) }
      for device in [mac, phone] {
        #expect(try names(device) == ["Koleston 7/1", "Blondor"], "\(device.home)")
        #expect(try views.quantity(device, "Koleston 7/1") == 8)
        #expect(try views.quantity(device, "Blondor") == 15)
        let verify = try device.run(["sync", "verify"])
        #expect(verify.status == 0, "\(verify)")
        let status = try device.run(["sync", "status", "--json"]).json()
        let live = status["otherZones"]?.elements.filter { $0["live"] == .bool(true) }
        #expect(live?.isEmpty == true, "\(status)")
      }
      // From now on they are one zone: moves on both add up.
      #expect(try mac.run(["consume", "Blondor"]).status == 0)
      #expect(try phone.run(["consume", "Blondor"]).status == 0)
      for _ in 0..<2 {
        for device in [mac, phone] { try views.sync(device) }
        try views.spread(from: [mac, phone], to: [mac, phone])
      }
      for device in [mac, phone] { try views.sync(device) }
      #expect(try views.quantity(mac, "Blondor") == 13)
      #expect(try views.quantity(phone, "Blondor") == 13)
    }
  }

  /// A third device of the zone that was left learns of it on its own sync: the other zone's
  /// changes are still news to it, and it is told to join too (the mac's segments in the new
  /// zone only hold what it had, which the third device knows: they are settled, not news).
  @Test func aDeviceOfTheLeftZoneIsToldToJoinToo() throws {
    try withCLI { cli in
      let (mac, phone) = try race(cli, zoneFiles: .eachKeepsItsOwn)
      var ipad = cli
      ipad.home = cli.folder.appendingPathComponent("ipad")
      let ipadView = cli.folder.appendingPathComponent("cloud-ipad")
      try FileManager.default.createDirectory(at: ipadView, withIntermediateDirectories: true)
      try FileManager.default.copyItem(
        at: views.view(mac).appendingPathComponent("zone.json"),
        to: ipadView.appendingPathComponent("zone.json"))
      #expect(try ipad.run(["init", "--name", "ipad"]).status == 0)
      #expect(try ipad.run(["sync", "enable", "--cloud", ipadView.path]).status == 0)
      try views.spread(from: [mac, phone], to: [ipad])
      try views.sync(ipad)
      #expect(try names(ipad) == ["Koleston 7/1"])
      let phoneZone = try zone(of: phone)
      #expect(try mac.run(["sync", "join-zone", phoneZone]).status == 0)
      for device in [mac, phone, ipad] { try views.sync(device) }
      try views.spread(from: [mac, phone, ipad], to: [mac, phone, ipad])
      let told = try ipad.run(["sync"])
      #expect(told.standardOutput.contains("join-zone \(phoneZone.prefix(8))"), "\(told)")
      #expect(told.standardOutput.contains("phone"), "\(told)")
      #expect(try ipad.run(["sync", "join-zone", phoneZone]).status == 0)
      for _ in 0..<2 {
        for device in [mac, phone, ipad] { try views.sync(device) }
        try views.spread(from: [mac, phone, ipad], to: [mac, phone, ipad])
      }
      for device in [mac, phone, ipad] {
        try views.sync(device)
        #expect(try names(device) == ["Koleston 7/1", "Blondor"])
      }
      for device in [mac, phone, ipad] {
        #expect(try device.run(["sync", "verify"]).status == 0, "\(device.home)")
      }
    }
  }
}
