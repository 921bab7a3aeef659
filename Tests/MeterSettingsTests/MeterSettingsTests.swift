import Foundation
import MeterSettings
import Stash
import StashModel
import StashTestSupport
import Synchronization
import Testing

let epoch = Timestamp(secondsSince1970: 1_764_441_600)!

/// A clock the tests move by hand.
final class TestClock: Sendable {
  private let time = Mutex(epoch)

  var now: Timestamp { time.withLock { $0 } }

  func advance(_ seconds: Double) {
    time.withLock { $0 = Timestamp(secondsSince1970: $0.secondsSince1970 + seconds)! }
  }
}

/// Two devices of the meter app (an iPhone and an iPad) sharing one cloud folder.
struct TwoMeterDevices {
  let root: URL
  let clock = TestClock()
  let phone: MeterFolder
  let pad: MeterFolder

  init(_ root: URL) throws {
    self.root = root
    let cloud = root.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
    for name in ["phone", "pad"] {
      try Self.open(root, name, clock).folder.enableSync(cloud: cloud.path)
    }
    phone = try Self.open(root, "phone", clock)
    pad = try Self.open(root, "pad", clock)
  }

  static func open(_ root: URL, _ name: String, _ clock: TestClock) throws -> MeterFolder {
    try MeterFolder(
      at: root.appendingPathComponent(name).path,
      options: .init(deviceName: "iPhone-\(name)", clock: { [clock] in clock.now }))
  }

  /// Both devices sync, twice over, so each has seen the other's latest.
  func syncBoth() throws {
    for device in [phone, pad, phone, pad] { _ = try device.folder.sync() }
  }
}

@Suite struct MeterModelTests {
  @Test(arguments: ["aa:bb:cc:dd:ee:ff", "AA-BB-CC-DD-EE-FF", "aabb.ccdd.eeff", "AABBCCDDEEFF"])
  func everySpellingOfAMACGivesOneId(spelling: String) throws {
    #expect(try MACAddress.normalized(spelling) == "aa:bb:cc:dd:ee:ff")
    #expect(
      Meter.id(forMAC: try MACAddress.normalized(spelling)).rawValue
        == "6638eafa-f68a-8276-a1c9-5165e9c4e543")
  }

  @Test(arguments: ["", "aa:bb:cc:dd:ee", "gg:bb:cc:dd:ee:ff", "aa:bb:cc:dd:ee:ff:00", "ａａ"])
  func aTextThatIsNotAMACIsRefused(text: String) {
    #expect(throws: ModelError.self) { try MACAddress.normalized(text) }
  }

  @Test func theTemperatureUnitIsValidated() throws {
    try withTemporaryFolder { root in
      let meters = try TwoMeterDevices(root).phone
      try meters.pair(mac: "aa:bb:cc:dd:ee:ff", modelType: "TC66C")
      try meters.setTemperatureUnit(mac: "aa:bb:cc:dd:ee:ff", to: "fahrenheit")
      #expect(try meters.meter(mac: "aa:bb:cc:dd:ee:ff")?.temperatureUnit == .fahrenheit)
      let error = #expect(throws: StashError.self) {
        try meters.setTemperatureUnit(mac: "aa:bb:cc:dd:ee:ff", to: "kelvin")
      }
      #expect(error?.message.contains("'kelvin'") == true)
      var record = try #require(try meters.meter(mac: "aa:bb:cc:dd:ee:ff")).record
      try record.set("temperatureUnit", to: .string("kelvin"))
      #expect(throws: StashError.self) { try meters.folder.save(record) }
    }
  }

  @Test func theDeviceLocalFieldIsNeitherHashedNorSynced() throws {
    try withTemporaryFolder { root in
      let devices = try TwoMeterDevices(root)
      var meter = try devices.phone.pair(mac: "aa:bb:cc:dd:ee:ff")
      let hash = meter.record.snapshotHash
      meter.peripheralCache = "rssi -40"
      #expect(meter.record.snapshotHash == hash)
      try devices.phone.folder.save(meter)
      try devices.syncBoth()
      #expect(try devices.pad.meter(mac: "aa:bb:cc:dd:ee:ff")?.peripheralCache == nil)
      #expect(try devices.phone.meter(mac: "aa:bb:cc:dd:ee:ff")?.peripheralCache == "rssi -40")
    }
  }
}

@Suite struct MeterSyncTests {
  let mac = "aa:bb:cc:dd:ee:ff"

  @Test func aRenameOnBothDevicesIsKeptAsAConflict() throws {
    try withTemporaryFolder { root in
      let devices = try TwoMeterDevices(root)
      try devices.phone.pair(mac: mac, modelType: "UM25C")
      try devices.syncBoth()
      devices.clock.advance(5)
      try devices.phone.rename(mac: mac, to: "Kitchen Meter")
      try devices.pad.rename(mac: mac, to: "Desk Meter")
      _ = try devices.phone.folder.sync()
      let report = try devices.pad.folder.sync()
      #expect(report.newConflicts.count == 1)
      #expect(try devices.pad.meter(mac: mac)?.name == "Desk Meter", "neither is thrown away")
      let conflict = try #require(devices.pad.folder.conflicts().first)
      let names = conflict.sides.compactMap { side -> String? in
        guard case .string(let name)? = side.snapshot?.record?[field: "name"] else { return nil }
        return name
      }
      #expect(Set(names) == ["Kitchen Meter", "Desk Meter"])
    }
  }

  @Test func theLeaseIsRefusedWhileLiveAndTakenOverAfterExpiry() throws {
    try withTemporaryFolder { root in
      let devices = try TwoMeterDevices(root)
      try devices.phone.pair(mac: mac)
      try devices.syncBoth()
      let lease = try devices.phone.connect(mac: mac)
      #expect(lease.expiresAt.secondsSince1970 == epoch.secondsSince1970 + 120)
      try devices.syncBoth()
      devices.clock.advance(60)
      let error = #expect(throws: StashError.self) { try devices.pad.connect(mac: mac) }
      #expect(error?.message.contains("'iPhone-phone'") == true)
      #expect(try devices.pad.meter(mac: mac)?.lease?.deviceName == "iPhone-phone")
      devices.clock.advance(90)
      let taken = try devices.pad.connect(mac: mac)
      #expect(taken.deviceName == "iPhone-pad")
      try devices.syncBoth()
      #expect(try devices.phone.meter(mac: mac)?.lease?.deviceName == "iPhone-pad")
      #expect(devices.phone.folder.conflicts().isEmpty && devices.pad.folder.conflicts().isEmpty)
    }
  }

  @Test func sightingsAreThrottledPerDeviceAndNeverConflict() throws {
    try withTemporaryFolder { root in
      let devices = try TwoMeterDevices(root)
      try devices.phone.pair(mac: mac)
      try devices.syncBoth()
      #expect(try devices.phone.sighted(mac: mac, peripheralName: "UM25C"))
      #expect(try devices.pad.sighted(mac: mac))
      for _ in 0..<10 {
        devices.clock.advance(10)
        #expect(try !devices.phone.sighted(mac: mac), "a burst writes once")
      }
      devices.clock.advance(30)
      #expect(try devices.phone.sighted(mac: mac))
      #expect(try devices.pad.sighted(mac: mac))
      try devices.syncBoth()
      let meter = try #require(try devices.phone.meter(mac: mac))
      #expect(devices.phone.sightings(of: meter).count == 2)
      #expect(devices.phone.folder.conflicts().isEmpty && devices.pad.folder.conflicts().isEmpty)
    }
  }

  @Test func aMeterForgottenAndPairedAgainComesBackWithoutAConflict() throws {
    try withTemporaryFolder { root in
      let devices = try TwoMeterDevices(root)
      let first = try devices.phone.pair(mac: mac, modelType: "UM25C")
      try devices.phone.rename(mac: mac, to: "Kitchen Meter")
      try devices.syncBoth()
      #expect(try devices.pad.meter(mac: mac)?.name == "Kitchen Meter")
      devices.clock.advance(5)
      try devices.phone.forget(mac: mac)
      try devices.syncBoth()
      #expect(try devices.pad.meter(mac: mac) == nil, "the forget travelled")
      devices.clock.advance(5)
      let again = try devices.phone.pair(mac: "AA-BB-CC-DD-EE-FF", modelType: "UM25C")
      #expect(again.id == first.id)
      try devices.syncBoth()
      #expect(try devices.pad.meter(mac: mac)?.modelType == "UM25C")
      #expect(try devices.pad.meter(mac: mac)?.name == nil, "a new pairing, not the old row")
      #expect(devices.phone.folder.conflicts().isEmpty && devices.pad.folder.conflicts().isEmpty)
    }
  }

  @Test func aMeterPairedAgainOnTheOtherDeviceComesBackToo() throws {
    try withTemporaryFolder { root in
      let devices = try TwoMeterDevices(root)
      try devices.phone.pair(mac: mac)
      try devices.syncBoth()
      devices.clock.advance(5)
      try devices.phone.forget(mac: mac)
      try devices.syncBoth()
      devices.clock.advance(5)
      try devices.pad.pair(mac: mac, modelType: "TC66C")
      try devices.syncBoth()
      #expect(try devices.phone.meter(mac: mac)?.modelType == "TC66C")
      #expect(devices.phone.folder.conflicts().isEmpty && devices.pad.folder.conflicts().isEmpty)
    }
  }
}
