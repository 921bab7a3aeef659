import Foundation
import MeterSettings
import Stash
import StashModel
import StashTestSupport
import Testing

/// Duplicate repair on the second schema: two rows of one MAC address (a meter an older app
/// version saved under a random id, beside the one under its derived id) are merged in place
/// by the meter schema's declared candidate key, as items are by barcode.
@Suite struct MeterDuplicateTests {
  /// The phone holds one meter twice: under its derived id (renamed later, so the most
  /// recently updated) and under a random id; both devices have synced it.
  func twoDevicesWithADuplicateMeter(_ root: URL) throws -> TwoMeterDevices {
    let devices = try TwoMeterDevices(root)
    let mac = "aa:bb:cc:dd:ee:ff"
    var random = SeededRandom(seed: 13)
    var old = Meter(macAddress: mac, modelType: "UM25C", at: devices.clock.now).record
    old = try Record(schema: Meter.schema, id: .random(using: &random), values: old.values)
    try devices.phone.folder.save(old)
    devices.clock.advance(60)
    try devices.phone.pair(mac: mac)
    try devices.phone.rename(mac: mac, to: "Kitchen Meter")
    try devices.syncBoth()
    #expect(devices.pad.folder.records(of: "meter").count == 2)
    return devices
  }

  @Test func theMACsDuplicateIsTombstonedAndTheDerivedRowWinsInPlace() throws {
    try withTemporaryFolder { root in
      let devices = try twoDevicesWithADuplicateMeter(root)
      let repair = try devices.phone.folder.repairDuplicates()
      #expect(repair.recordsDeleted.count == 1)
      let meters = devices.phone.meters
      #expect(meters.map(\.id) == [Meter.id(forMAC: "aa:bb:cc:dd:ee:ff")])
      #expect(meters.first?.name == "Kitchen Meter")
      #expect(meters.first?.modelType == "UM25C", "the winner is filled in from the duplicate")
      let again = try devices.phone.folder.repairDuplicates()
      #expect(again.alreadyDone && again.recordsDeleted.isEmpty)
    }
  }

  @Test func theOtherDeviceConvergesWithOneDeletion() throws {
    try withTemporaryFolder { root in
      let devices = try twoDevicesWithADuplicateMeter(root)
      try devices.phone.folder.repairDuplicates()
      try devices.syncBoth()
      #expect(devices.pad.meters == devices.phone.meters)
      #expect(devices.pad.folder.records(of: "meter").count == 1)
      #expect(devices.pad.folder.conflicts().isEmpty && devices.phone.folder.conflicts().isEmpty)
    }
  }
}

/// A copied or restored meter folder is another device (DESIGN, "Tallies belong to an
/// incarnation"): its leases and sightings are its own, never the original's.
@Suite struct MeterCopyTests {
  let mac = "aa:bb:cc:dd:ee:ff"

  /// The phone's folder copied as it is, opened on the devices' clock.
  func copy(of devices: TwoMeterDevices) throws -> MeterFolder {
    let copy = devices.root.appendingPathComponent("phone-copy").path
    try FileManager.default.copyItem(
      atPath: devices.root.appendingPathComponent("phone").path, toPath: copy)
    return try MeterFolder(
      at: copy,
      options: .init(deviceName: "iPhone-copy", clock: { [clock = devices.clock] in clock.now }))
  }

  @Test func aCopiedFolderNeitherRenewsNorDropsTheOriginalsLease() throws {
    try withTemporaryFolder { root in
      let devices = try TwoMeterDevices(root)
      try devices.phone.pair(mac: mac)
      _ = try devices.phone.connect(mac: mac)
      let copied = try copy(of: devices)
      devices.clock.advance(30)
      try copied.disconnect(mac: mac)
      #expect(try copied.meter(mac: mac)?.lease != nil, "the copy dropped the original's lease")
      #expect(throws: StashError.self, "the copy renewed the original's lease") {
        try copied.connect(mac: mac)
      }
    }
  }

  @Test func aCopiedFolderSightsUnderItsOwnRecord() throws {
    try withTemporaryFolder { root in
      let devices = try TwoMeterDevices(root)
      try devices.phone.pair(mac: mac)
      #expect(try devices.phone.sighted(mac: mac))
      let copied = try copy(of: devices)
      #expect(try copied.sighted(mac: mac), "the copy's sighting is its own record")
      let meter = try #require(try copied.meter(mac: mac))
      let devicesSeen = Set(copied.sightings(of: meter).map(\.deviceID))
      #expect(devicesSeen.count == 2 && devicesSeen.contains(copied.folder.deviceID!))
    }
  }
}
