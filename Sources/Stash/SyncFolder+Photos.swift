import CloudFolder
import MirrorStore
import StashBase
import StashModel

/// Photos the shared folder lacks: a sync tool may remove, rename (rclone bisync's
/// `<sha>..path1`), cut short or garble `blobs/<sha>`, and the devices that need it would wait
/// forever. Every full sync of a device that holds such a photo publishes it again (never
/// replacing a file: what occupies the name is not the photo, and is removed first), and
/// `sync status`, `sync verify` and the doctor name it until then.
///
/// Checking a shared photo reads and hashes it, so a sync remembers which copies it found
/// intact: the `blob` lines of the sync seal (SyncSeal.swift), written after a clean sync that
/// checked every one. A shared photo whose kind, inode, size and change time are still the ones
/// recorded there is intact without being read again; any write to it changes its change time.
extension SyncFolder {
  /// The photos this device holds that the shared folder lacks; writes nothing.
  func lackingPhotos(
    mirror: MirrorStore, cloud: CloudFolder, summary: MirrorSummary? = nil
  ) -> [LackingPhoto] {
    let sealed = SyncSeal.sealedPhotos(home: home, cloud: cloud.root, fileSystem: fileSystem)
    let fileSystem = self.fileSystem
    return cloud.lackingPhotos(in: mirror.content, deviceBlobs: blobs, summary: summary) { ref in
      let name = cloud.sharedPhotoName(ref)
      guard let line = sealed[name] else { return false }
      return SyncSeal.photoEntry(cloud: cloud.root, name: name, fileSystem: fileSystem) == line
    }
  }

  /// Publishes again the photos this device holds that the shared folder lacks.
  ///
  /// - Returns: The photos published, their SHA-256 in hex.
  func publishLackingPhotos(mirror: MirrorStore, cloud: CloudFolder) throws(CloudError)
    -> [String]
  {
    let lacking = lackingPhotos(mirror: mirror, cloud: cloud)
    guard !lacking.isEmpty else { return [] }
    return try cloud.publishAgain(lacking, from: blobs).map(\.digest.hex)
  }
}
