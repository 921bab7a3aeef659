import Foundation
import JSONLines
import MirrorStore
import StashModel
import StashTestSupport
import Testing

/// What a whole mirror keeps in memory per record (issue 26, item 4), measured alone
/// (``HeapUsage/measuredAlone(_:)``), so that other tests' allocations never count.
@Suite(.serialized) struct MirrorMemoryTests {
  static let count = 20_000

  /// A record with one version (every record after a first sync or a second device's
  /// import) is held inline: no dictionary of versions and no set of leaves of its own. By
  /// the heap in use, a record took 879 bytes with them (bb6585b) and takes 367; the bound
  /// leaves room for the dictionary's load, not for a dictionary per record.
  @Test func aRecordWithOneVersionCostsItsEntryAndNoDictionaryOfItsOwn() throws {
    guard HeapUsage.isAvailable else { return }
    let epoch = Timestamp(secondsSince1970: 1_764_441_600)!
    let device = DeviceID("00000000-0000-4000-8000-00000000a11c")!
    let versions = (0..<Self.count).map { index in
      MirrorVersion(
        snapshot: .record(
          Item(name: "Tube \(index)", quantity: Int64(index % 9), createdAt: epoch).record),
        parents: [], generation: 1, author: device, authoredAt: epoch)
    }
    let header = LogHeader(
      format: MirrorContent.format, version: MirrorContent.version, storeID: StoreID.make(),
      deviceID: device, created: epoch)
    // What a replay of the mirror's file adds: each version with where its line is.
    func bytesPerRecord() -> Int {
      var content = MirrorContent(
        header: header, context: MirrorContent.Context(schemas: InventorySchemas.registry))
      let before = HeapUsage.bytesInUse
      for (line, version) in versions.enumerated() {
        content.apply(
          .addVersion(version, pending: false),
          at: LineSpan(offset: Int64(line) * 400, length: 400, line: line))
      }
      let after = HeapUsage.bytesInUse
      return withExtendedLifetime(content) { (after - before) / Self.count }
    }
    _ = bytesPerRecord()  // what measuring needs, made here first
    let perRecord = try #require(HeapUsage.measuredAlone(bytesPerRecord))
    #expect(perRecord < 450, "\(perRecord) bytes a record")
  }

  /// A version read from its line holds no text of its author's id: each held a string of
  /// its own (80 bytes of heap), 8 MB of a 100,000-version mirror read whole (massif), though
  /// a mirror's versions name a device or two. By the heap in use, a version read from its
  /// line (with its record) took 599 bytes with the text, and takes 504.
  @Test func aVersionReadFromItsLineHoldsNoTextOfItsAuthor() throws {
    guard HeapUsage.isAvailable else { return }
    let epoch = Timestamp(secondsSince1970: 1_764_441_600)!
    let device = DeviceID("00000000-0000-4000-8000-00000000a11c")!
    let version = MirrorVersion(
      snapshot: .record(Item(name: "Tube", quantity: 3, createdAt: epoch).record),
      parents: [], generation: 1, author: device, authoredAt: epoch)
    var line = [UInt8]()
    version.appendJSON(to: &line)
    func bytesPerVersion() -> Int {
      let before = HeapUsage.bytesInUse
      let read = (0..<Self.count).map { _ in
        line.withUnsafeBytes {
          MirrorVersion.read(line: $0, schemas: InventorySchemas.registry, format: nil)
        }
      }
      let after = HeapUsage.bytesInUse
      return withExtendedLifetime(read) { (after - before) / Self.count }
    }
    _ = bytesPerVersion()  // what measuring needs, made here first
    let perVersion = try #require(HeapUsage.measuredAlone(bytesPerVersion))
    #expect(perVersion < 550, "\(perVersion) bytes a version with its record")
  }

  /// A snapshot is a record's size (and its case): a tombstone, 72 bytes inline, is boxed.
  /// Inline it made every snapshot 73 bytes and every mirror version 184 (136 now), in the
  /// mirror and in everything a pass keeps per record.
  @Test func aSnapshotTakesNoMoreRoomThanARecord() {
    #expect(MemoryLayout<Snapshot>.size <= MemoryLayout<Record>.size + 1)
    #expect(MemoryLayout<MirrorVersion>.size <= 136)
  }
}
