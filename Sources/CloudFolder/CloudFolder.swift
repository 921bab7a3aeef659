// CloudFolder: the transport between devices, through a shared folder.
//
// A stand-in for CloudKit's private database that works through any folder a file-sync tool
// keeps in step (Syncthing, Dropbox, iCloud Drive, a network share), or a plain folder on one
// machine. Each device writes only its own immutable files, so the sync tool never sees two
// writers on one path:
//
//   <cloud>/zone.json                       the zone's identity, written once
//   <cloud>/devices/<deviceID>/<seq>.jsonl  one export segment: versions, never replaced
//   <cloud>/blobs/<sha256>                  photo bytes, never replaced, verified on read
//   <cloud>/keys/<keyid>.json               an encrypted folder's later keys (rotations)
//
// An encrypted folder (zone.json version 2) seals every segment and photo with a key this
// device holds (`FolderKeyring`); see `SealedSegment` and `SharedFiles+SealedPhotos`.
//
// The folder is untrusted input (see `SharedFiles`): only regular files are read, never
// through a link, each after a size check (`CloudLimits`); every imported version is checked
// like a local edit. It imports MirrorStore only (never LocalStore or Reconciler) and posts
// MirrorEvents. The caller (the `Stash` facade) holds the device folder's lock around a whole
// sync, so one device's import, pass and export never interleave with another sync of it.

import Foundation
import JSONLines
import MirrorStore
public import StashFiles
import StashModel

/// A shared folder that carries mirror versions between devices.
public struct CloudFolder: Sendable {
  /// The folder's path.
  public let root: String
  let fileSystem: any FileSystem
  /// The folder's keys when it is encrypted (this device holds a key file), else `nil`.
  public let keyring: FolderKeyring?

  /// The shared folder at `root`.
  ///
  /// - Parameters:
  ///   - root: The folder's path.
  ///   - fileSystem: Where files are read and written.
  ///   - keyring: The keys of an encrypted folder: then everything is sealed on the way out,
  ///     and only what opens under one of these keys is read; `nil` for a plain folder.
  public init(
    root: String, fileSystem: any FileSystem = POSIXFileSystem(), keyring: FolderKeyring? = nil
  ) {
    self.root = root
    self.fileSystem = fileSystem
    self.keyring = keyring
  }

  /// Reading and writing inside the folder, with its checks.
  var files: SharedFiles { SharedFiles(root: root, fileSystem: fileSystem, keyring: keyring) }

  /// The zone file's path.
  var zonePath: String { root + "/zone.json" }
  /// The shared photo bytes (for their paths: reading goes through ``files``).
  public var blobs: BlobStore { BlobStore(folder: root + "/blobs", fileSystem: fileSystem) }

  /// The relative path of a device's segment.
  static func segmentPath(device: DeviceID, sequence: Int64) -> String {
    "devices/\(device.rawValue)/" + String(format: "%06lld", sequence) + ".jsonl"
  }

  /// Fails unless the folder exists and can be listed.
  func checkReachable() throws(CloudError) {
    do {
      _ = try fileSystem.contentsOfDirectory(root)
    } catch {
      throw .unreachable(root, error.reason)
    }
  }

  /// Checks (and on first use records) that the mirror belongs to this folder's zone.
  ///
  /// A `zone.json` that names another zone, or none at all, in a folder that still holds
  /// segments this mirror wrote or read is the sync tool's doing (two devices made a zone
  /// each before the tool first ran, and it kept one file, or renamed both): this device goes
  /// on with its own zone, publishing `zone.json` again when it is missing (never replacing
  /// one), and the import reports the other zone. Only a folder without any of them is
  /// another account's or a reset folder.
  ///
  /// - Returns: This device's zone and what `zone.json` names.
  /// - Throws: ``CloudError/otherZone(folder:zone:mirrorZone:)`` when the mirror belongs to
  ///   another zone (an account change: never merged), or what reading `zone.json` throws.
  func bind(_ mirror: MirrorStore) throws(CloudError) -> ZoneBinding {
    let content = mirror.content
    guard let bound = content.zone else {
      let zone = try self.zone(creatingIfMissing: true)
      try save(mirror) { content, transaction in
        if content.zone == nil { transaction.bindZone(zone) }
      }
      return ZoneBinding(zone: zone, zoneFile: zone)
    }
    var binding = try self.binding(of: content, zone: bound)
    if binding.zoneFile == nil {
      try publishZone(bound)
      binding = try self.binding(of: content, zone: bound)
    }
    return binding
  }

  /// Saves one mirror transaction, keeping the store's error typed.
  func save(
    _ mirror: MirrorStore, _ body: (MirrorContent, inout MirrorTransaction) -> Void
  ) throws(CloudError) {
    do {
      try mirror.update { content, transaction in body(content, &transaction) }
    } catch {
      throw .mirror(error.storeFailure)
    }
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
