import Foundation
import JSONLines
import LocalStore
import MirrorStore
import Stash
import StashBase
import StashModel
import StashTestSupport
import Testing

/// `SyncFolder.joinZone(_:)` through the facade: what the CLI tests cannot set up.
@Suite struct ZoneJoinTests {
  /// Two devices that each made a zone in their own copy of the folder; then the sync tool
  /// copies every segment both ways (each copy keeps its own `zone.json`).
  private struct Race {
    let mac: URL
    let phone: URL
    let macCloud: URL
    let phoneCloud: URL

    init(_ folder: URL, items: (mac: Item, phone: Item)) throws {
      mac = folder.appendingPathComponent("mac")
      phone = folder.appendingPathComponent("phone")
      macCloud = folder.appendingPathComponent("cloud-mac")
      phoneCloud = folder.appendingPathComponent("cloud-phone")
      for (home, cloud, item) in [(mac, macCloud, items.mac), (phone, phoneCloud, items.phone)] {
        try FileManager.default.createDirectory(at: cloud, withIntermediateDirectories: true)
        try openDevice(home).folder.enableSync(cloud: cloud.path)
        let device = try openDevice(home)
        try device.addItem(item)
        _ = try device.folder.sync()
      }
      try spread()
    }

    /// Copies what each view lacks of the other's device folders.
    func spread() throws {
      for (from, to) in [(macCloud, phoneCloud), (phoneCloud, macCloud)] {
        let devices = from.appendingPathComponent("devices")
        for relative in try FileManager.default.subpathsOfDirectory(atPath: devices.path) {
          let source = devices.appendingPathComponent(relative)
          let target = to.appendingPathComponent("devices").appendingPathComponent(relative)
          var isFolder: ObjCBool = false
          _ = FileManager.default.fileExists(atPath: source.path, isDirectory: &isFolder)
          if isFolder.boolValue {
            try FileManager.default.createDirectory(at: target, withIntermediateDirectories: true)
          } else if !FileManager.default.fileExists(atPath: target.path) {
            try FileManager.default.copyItem(at: source, to: target)
          }
        }
      }
    }

    func zone(of home: URL) throws -> String {
      try #require(try openDevice(home).folder.mirror.store?.content.zone)
    }
  }

  /// An earlier release marked the other zone's segment read after reporting it once: the
  /// device still reports it, and joining the zone reads it.
  @Test func joiningReadsSegmentsAnEarlierReleaseMarkedRead() throws {
    try withTemporaryFolder { folder in
      let race = try Race(
        folder,
        items: (
          Item(name: "Koleston", quantity: 5, createdAt: epoch),
          Item(name: "Blondor", quantity: 3, createdAt: epoch)
        ))
      let mac = try openDevice(race.mac)
      let mirror = try #require(mac.folder.mirror.store)
      let phoneSegments = try FileManager.default.subpathsOfDirectory(
        atPath: race.macCloud.path + "/devices"
      ).filter { $0.hasSuffix(".jsonl") }.map { "devices/" + $0 }
        .filter { !mirror.content.exportedSegments.contains($0) }
      #expect(phoneSegments.count == 1)
      try mirror.update { _, transaction in
        for path in phoneSegments { transaction.markRead(segment: path) }
      }
      let reported = try openDevice(race.mac).folder.sync()
      #expect(reported.otherZones.first?.segments == phoneSegments, "\(reported.otherZones)")
      _ = try openDevice(race.mac).folder.joinZone(try race.zone(of: race.phone))
      _ = try openDevice(race.mac).folder.sync()
      #expect(Set(try openDevice(race.mac).items().map(\.name)) == ["Koleston", "Blondor"])
    }
  }

  /// Both zones created a record under one derived id: after the join they meet as concurrent
  /// versions, and neither is lost (they merge, or a conflict keeps both on each device).
  @Test func aRecordBothZonesCreatedUnderOneIdMeetsAsConcurrentVersions() throws {
    try withTemporaryFolder { folder in
      let id = RecordID.derived(model: "item", naturalKey: "shelf 1")
      let race = try Race(
        folder,
        items: (
          Item(id: id, name: "Shelf one", quantity: 5, notes: "mac", createdAt: epoch),
          Item(id: id, name: "Shelf one", quantity: 5, notes: "phone", createdAt: epoch)
        ))
      _ = try openDevice(race.mac).folder.joinZone(try race.zone(of: race.phone))
      for _ in 0..<2 {
        for home in [race.mac, race.phone] { _ = try openDevice(home).folder.sync() }
        try race.spread()
      }
      var notes = Set<String>()
      for home in [race.mac, race.phone] {
        let device = try openDevice(home)
        var kept = device.folder.conflicts().flatMap { $0.sides.compactMap(\.snapshot?.record) }
        kept +=
          device.folder.content?.rows(for: RecordKey(model: "item", id: id)).map(\.record) ?? []
        kept +=
          (device.folder.mirror.store?.content.versions[RecordKey(model: "item", id: id)] ?? [:])
          .values.compactMap(\.snapshot.record)
        for record in kept {
          if case .string(let text)? = record[field: "notes"] { notes.insert(text) }
        }
        #expect(
          !device.folder.conflicts().isEmpty
            || device.folder.content?.row(for: RecordKey(model: "item", id: id)) != nil)
      }
      #expect(notes.isSuperset(of: ["mac", "phone"]), "\(notes)")
    }
  }
}
