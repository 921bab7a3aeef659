import Foundation
import JSONLines
import MirrorStore
import Stash
import StashBase
import StashFiles
import StashModel
import StashTestSupport

/// Photos, and a sync tool that loses them: people attach one of three pictures now and then
/// (so two devices often attach the same one and both write `blobs/<sha>`), and the sync tool
/// now and then removes such a file from every view, or renames it in every view as rclone
/// bisync does (`<sha>..path1`, `<sha>..path2`). A device that holds the photo must name it in
/// `sync verify` until it syncs, and every sync of a device leaves every photo it holds and
/// its mirror names intact in its view; at quiescence nothing waits for a photo and nobody
/// has one to publish.
extension Simulation {
  /// The pictures people attach.
  static let pictures: [[UInt8]] = (0..<3).map { index in
    var random = SeededRandom(seed: 900 + UInt64(index))
    return random.bytes(1500 + 700 * index)
  }

  /// A picture for a new item a quarter of the time (stored in the device's blobs, as
  /// `stash add --photo` does), else none.
  mutating func attachedPhoto(on folder: DeviceFolder) throws -> BlobRef? {
    guard Int.random(in: 0..<4, using: &random) == 0 else { return nil }
    totals.heal.photosAttached += 1
    return try folder.folder.blobs.store(Self.pictures.randomElement(using: &random)!)
  }

  /// The sync tool loses one of the pictures in every view: removed, or renamed.
  mutating func losePhoto() throws {
    let names = Self.pictures.map { SHA256.hash($0).hex }
    let manager = FileManager.default
    let present = names.filter { name in
      devices.contains { manager.fileExists(atPath: $0.view.path + "/blobs/" + name) }
    }
    guard let name = present.randomElement(using: &random) else { return }
    let renaming = Bool.random(using: &random)
    for (index, device) in devices.enumerated() {
      let path = device.view.path + "/blobs/" + name
      guard manager.fileExists(atPath: path) else { continue }
      if renaming {
        let renamed = path + "..path\(index + 1)"
        if !manager.fileExists(atPath: renamed) {
          try manager.moveItem(atPath: path, toPath: renamed)
        }
        try? manager.removeItem(atPath: path)
      } else {
        try manager.removeItem(atPath: path)
      }
    }
    totals.heal.photosLost += 1
    // 8: a device that holds it and names it names it in `sync verify` until it syncs.
    for device in devices where device.online {
      let folder = try open(device)
      guard heldAndNamed(by: folder).contains(name) else { continue }
      let verify = try folder.verify()
      if verify.isInSync || !verify.photosToPublish.contains(where: { $0.photo == name }) {
        problems.append("8: verify did not name the photo the shared folder lost")
      }
      break
    }
  }

  /// The pictures `folder` holds that versions in its mirror name (hex).
  func heldAndNamed(by folder: DeviceFolder) -> Set<String> {
    guard let mirror = folder.folder.mirror.store?.content else { return [] }
    var named = Set<String>()
    for versions in mirror.versions.values {
      for version in versions.values {
        for value in version.snapshot.record?.values ?? [] {
          if case .blob(let ref) = value, folder.folder.blobs.check(ref) == .present {
            named.insert(ref.digest.hex)
          }
        }
      }
    }
    return named
  }

  /// 7: after a sync, every picture the device holds and its mirror names is intact in its
  /// view (published again if the sync tool had lost it).
  mutating func checkPhotos(
    _ device: SimulatedDevice, _ folder: DeviceFolder, _ report: SyncRunReport
  ) throws {
    totals.heal.photosPublished += report.photosPublished.count
    for name in heldAndNamed(by: folder) {
      let bytes = try? Data(contentsOf: device.view.appendingPathComponent("blobs/" + name))
      guard let bytes, SHA256.hash([UInt8](bytes)).hex == name else {
        problems.append("7: a photo this device holds is not in its view after its sync")
        continue
      }
    }
  }

  /// At quiescence: no device's last sync waits for a photo or names another zone with
  /// changes it does not have (every sync checked that the photos it holds are in its view),
  /// and `sync verify` on one of them names neither.
  mutating func checkHealed(_ folders: [DeviceFolder]) throws {
    for device in devices {
      let waiting = (device.lastReport?.waiting ?? []).filter { note in
        note.contains("its photo")
          && !(hostile?.wrote(String(note.dropFirst().prefix { $0 != "'" })) ?? false)
      }
      if !waiting.isEmpty { problems.append("7: a record still waits for its photo: \(waiting)") }
      if device.lastReport?.otherZones.contains(where: \.hasLiveSegments) == true {
        problems.append("6: another zone is left after the join")
      }
    }
    guard let folder = folders.randomElement(using: &random) else { return }
    let verify = try folder.verify()
    if !verify.photosToPublish.isEmpty || verify.otherZones.contains(where: \.hasLiveSegments) {
      problems.append("8: verify names a photo to publish or another zone after quiescence")
    }
  }
}
