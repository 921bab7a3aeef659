import CloudFolder
import Foundation
import JSONLines
import MirrorStore
import StashFiles
import StashModel
import StashTestSupport
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

let sharedEpoch = Timestamp(secondsSince1970: 1_764_441_600)!

/// A device folder's mirror and blobs, as the transport sees them.
struct TestDevice {
  let folder: String
  let device: DeviceID
  let mirror: MirrorStore
  var blobs: BlobStore { BlobStore(deviceFolder: folder) }

  init(_ folder: URL, device: DeviceID = .make()) throws {
    self.folder = folder.path
    self.device = device
    mirror = try MirrorStore.open(
      folder: folder.path, schemas: InventorySchemas.registry,
      lock: FolderLock(folder: folder.path), create: (device, sharedEpoch, nil))
  }

  @discardableResult
  func write(_ record: Record, over parents: Set<VersionID> = []) throws -> MirrorVersion {
    try mirror.update { _, transaction in
      transaction.write(.record(record), parents: parents, author: device, at: sharedEpoch)
    }
  }

  /// The mirror file's bytes, to prove a refused import wrote nothing.
  func file() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: mirror.path)) }
}

/// An honest device A that made the zone and exported one item, a device B of the same zone
/// that has read it, and the folder.
struct SharedSetUp {
  let a: TestDevice
  let b: TestDevice
  let cloud: CloudFolder
  let zone: String

  init(_ folder: URL, fileSystem: any FileSystem = POSIXFileSystem()) throws {
    let root = folder.appendingPathComponent("cloud")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    a = try TestDevice(folder.appendingPathComponent("a"))
    b = try TestDevice(folder.appendingPathComponent("b"))
    cloud = CloudFolder(root: root.path, fileSystem: fileSystem)
    try a.write(Item(name: "First", quantity: 1, createdAt: sharedEpoch).record)
    try cloud.export(from: a.mirror, deviceBlobs: a.blobs, at: sharedEpoch)
    zone = try #require(a.mirror.content.zone)
    try b.mirror.update { _, transaction in transaction.bindZone(zone) }
    // B has caught up: what a test drops into the folder is all it has left to read.
    try cloud.importNew(into: b.mirror, deviceBlobs: b.blobs, at: sharedEpoch)
  }

  /// The absolute path of a file in the shared folder.
  func path(_ relative: String) -> String { cloud.root + "/" + relative }
}

/// A version as another device would write it, valid or not (records are built without the
/// model's checks).
func remoteVersion(
  _ snapshot: Snapshot, generation: Int64 = 1, parents: Set<VersionID> = [],
  author: DeviceID = DeviceID("0a0a0a0a-0000-4000-8000-000000000001")!
) -> MirrorVersion {
  MirrorVersion(
    snapshot: snapshot, parents: parents, generation: generation, author: author,
    authoredAt: sharedEpoch)
}

/// The bytes of a segment, written the way `CloudFolder` writes one (or with another `count`).
func segmentBytes(
  zone: String, device: DeviceID, sequence: Int64 = 1, versions: [MirrorVersion],
  count: Int? = nil
) -> [UInt8] {
  HostileSegment.bytes(
    zone: zone, device: device, sequence: sequence, lines: versions.map(\.json), count: count)
}

/// Writes a file (and its folders) in the shared folder.
func put(_ bytes: [UInt8], at path: String) throws {
  let url = URL(fileURLWithPath: path)
  try FileManager.default.createDirectory(
    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
  try Data(bytes).write(to: url)
}

/// An item record with any values at all (the model's checks are not run).
func rawItem(
  id: RecordID = .make(), name: String = "Koleston", quantity: Int64 = 5,
  photo: BlobRef? = nil, created: Double = 1_764_441_600
) -> Record {
  let time = FieldValue.date(Timestamp(secondsSince1970: created)!)
  return try! Record(
    schema: InventorySchemas.item, id: id,
    values: [
      .string(name), .none, .counter(Counter(base: quantity)), .string(""), .string(""),
      photo.map { .blob($0) } ?? .none, .none, .none, .none, time, time,
    ])
}

/// A location record with any values at all.
func rawLocation(latitude: Double?, longitude: Double?, radius: Double?) -> Record {
  let time = FieldValue.date(sharedEpoch)
  return try! Record(
    schema: InventorySchemas.location, id: .make(),
    values: [
      .string("Shop"), latitude.map { .double($0) } ?? .none,
      longitude.map { .double($0) } ?? .none, radius.map { .double($0) } ?? .none, .string(""),
      time, time,
    ])
}

/// A reminder record with any trigger text.
func rawReminder(trigger: String) -> Record {
  let time = FieldValue.date(sharedEpoch)
  return try! Record(
    schema: InventorySchemas.reminder, id: .make(),
    values: [
      .reference(.make()), .none, .string("Buy dye"), .string(trigger), .bool(true), .none,
      time, time,
    ])
}

/// Makes a FIFO at `path`.
func makeFIFO(at path: String) throws {
  try FileManager.default.createDirectory(
    at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
  #expect(mkfifo(path, 0o600) == 0)
}

/// Makes a sparse file of `size` bytes at `path` (nothing is written, so it costs no space).
func makeSparseFile(at path: String, size: Int64) throws {
  try FileManager.default.createDirectory(
    at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
  let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
  #expect(descriptor >= 0)
  #expect(ftruncate(descriptor, off_t(size)) == 0)
  close(descriptor)
}
