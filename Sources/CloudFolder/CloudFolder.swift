// CloudFolder: the transport between devices, through a shared folder.
//
// A stand-in for CloudKit's private database that works through any folder a file-sync tool
// keeps in step (Syncthing, Dropbox, iCloud Drive, a network share), or a plain folder on one
// machine. Each device writes only its own immutable files, so the sync tool never sees two
// writers on one path:
//
//   <cloud>/zone.json                       the zone's identity, written once
//   <cloud>/devices/<deviceID>/<seq>.jsonl  one export segment: versions, written tmp+rename
//   <cloud>/blobs/<sha256>                  photo bytes, written tmp+rename, verified on read
//
// It imports MirrorStore only (never LocalStore or Reconciler) and posts MirrorEvents.

import Foundation
public import JSONLines
import MirrorStore
import StashModel

/// A shared folder that carries mirror versions between devices.
public struct CloudFolder: Sendable {
  /// The folder's path.
  public let root: String
  let fileSystem: any FileSystem

  /// The shared folder at `root`.
  public init(root: String, fileSystem: any FileSystem = POSIXFileSystem()) {
    self.root = root
    self.fileSystem = fileSystem
  }

  /// The zone file's path.
  var zonePath: String { root + "/zone.json" }
  /// The folder of every device's segments.
  var devicesPath: String { root + "/devices" }
  /// The shared photo bytes.
  public var blobs: BlobStore { BlobStore(folder: root + "/blobs", fileSystem: fileSystem) }

  /// The relative path of a device's segment.
  static func segmentPath(device: DeviceID, sequence: Int) -> String {
    "devices/\(device.rawValue)/" + String(format: "%06d", sequence) + ".jsonl"
  }

  /// Fails unless the folder exists and can be listed.
  func checkReachable() throws(CloudError) {
    do {
      _ = try fileSystem.contentsOfDirectory(root)
    } catch {
      throw .unreachable(root, error.reason)
    }
  }

  /// The zone identifier, creating `zone.json` if the folder has none and `create` allows.
  ///
  /// - Throws: ``CloudError`` when the folder is unreachable, the zone file is damaged, or it
  ///   is missing and may not be created.
  func zone(creatingIfMissing create: Bool) throws(CloudError) -> String {
    try checkReachable()
    if let existing = try readZone() { return existing }
    guard create else { throw .noZone(root) }
    let zone = RecordID.make().rawValue
    let object: JSONObject = [
      "format": .string("stash.zone"), "version": .integer(1), "zone": .string(zone),
    ]
    let temporary = root + "/.zone.json.tmp-" + RecordID.make().rawValue
    do {
      let descriptor = try fileSystem.open(temporary, .createNew)
      defer { fileSystem.close(descriptor) }
      try fileSystem.write(descriptor, JSONWriter.bytes(.object(object)) + [10], at: 0)
      try fileSystem.synchronize(descriptor)
      // Written once: if another device's zone.json appeared meanwhile, keep that one.
      if try fileSystem.identity(atPath: zonePath) == nil {
        try fileSystem.rename(temporary, to: zonePath)
        try fileSystem.synchronizeDirectory(root)
      } else {
        try fileSystem.removeFile(temporary)
      }
    } catch {
      try? fileSystem.removeFile(temporary)
      throw .io(error)
    }
    guard let written = try readZone() else { throw .noZone(root) }
    return written
  }

  private func readZone() throws(CloudError) -> String? {
    let bytes: [UInt8]
    do {
      guard try fileSystem.identity(atPath: zonePath) != nil else { return nil }
      bytes = try readWhole(zonePath)
    } catch {
      throw .io(error)
    }
    guard case .object(let object)? = try? JSONParser.parse(bytes),
      object["format"] == .string("stash.zone"), case .string(let zone)? = object["zone"],
      RecordID(zone) != nil
    else { throw .damagedZone(zonePath) }
    return zone
  }

  /// Checks (and on first use records) that the mirror belongs to this folder's zone.
  ///
  /// - Returns: The zone identifier.
  /// - Throws: ``CloudError/otherZone(folder:zone:mirrorZone:)`` when the mirror belongs to
  ///   another zone (an account change: never merged).
  func bind(_ mirror: MirrorStore) throws(CloudError) -> String {
    let bound = mirror.content.zone
    let zone = try self.zone(creatingIfMissing: bound == nil)
    if let bound {
      guard bound == zone else { throw .otherZone(folder: root, zone: zone, mirrorZone: bound) }
      return zone
    }
    do {
      try mirror.update { content, transaction in
        if content.zone == nil { transaction.bindZone(zone) }
      }
    } catch {
      throw .mirror("\(error)")
    }
    return zone
  }

  func readWhole(_ path: String) throws(FileSystemError) -> [UInt8] {
    let descriptor = try fileSystem.open(path, .readOnly)
    defer { fileSystem.close(descriptor) }
    let size = try fileSystem.identity(of: descriptor).size
    return try fileSystem.read(descriptor, count: Int(size), at: 0)
  }

  /// Runs `body` between a started and a finished event of `kind` for `mirror`; the finished
  /// event carries the failure when `body` throws.
  func reporting<T>(
    _ kind: MirrorEvent.Kind, for mirror: MirrorStore, post: (MirrorEvent) -> Void,
    _ body: () throws(CloudError) -> T
  ) throws(CloudError) -> T {
    post(MirrorEvent(kind: kind, phase: .started, storeID: mirror.storeID))
    do {
      let result = try body()
      post(MirrorEvent(kind: kind, phase: .finished, storeID: mirror.storeID))
      return result
    } catch {
      post(
        MirrorEvent(
          kind: kind, phase: .finished, outcome: .failure(error.description),
          storeID: mirror.storeID))
      throw error
    }
  }
}
