import JSONLines
public import MirrorStore
import StashBase
import StashCrypto
public import StashFiles
public import StashModel

/// A photo that versions in the mirror name, that this device holds, and that the shared
/// folder lacks: missing, renamed by a sync tool (rclone bisync's `<sha>..path1`, Syncthing's
/// `.sync-conflict-…`), cut short, longer than it should be, other bytes, or something that
/// is not a regular file under its name. The next sync publishes it again.
public struct LackingPhoto: Hashable, Sendable {
  /// The photo.
  public let photo: BlobRef
  /// What the shared folder holds under its name instead, for a person.
  public let problem: String
}

/// How publishing one photo ended.
enum PhotoPublication: Equatable {
  /// An intact copy was there already: nothing was written.
  case intact
  /// It was published (whatever held its name before, if anything, was removed first).
  case published
  /// This device does not hold it intact: nothing was written.
  case missingHere
  /// A folder on the way is a link or a special file: nothing was written.
  case unsafe(path: String, kind: FileKind)
}

extension CloudFolder {
  /// Publishes a photo unless an intact copy is there.
  ///
  /// Anything else under a photo's name (bytes that do not match it, a copy cut short, a link
  /// or a FIFO) is removed first: a content-addressed name holding other bytes is nobody's
  /// photo, so removing it loses nothing, and it is the only thing the transport ever removes
  /// that it did not write. A folder under the name is left alone. The photo itself is then
  /// published like every file, never replacing one: a copy that arrived meanwhile stays.
  func publishPhoto(_ blob: BlobRef, from deviceBlobs: BlobStore) throws(CloudError)
    -> PhotoPublication
  {
    let relative = files.photoPath(blob)
    do throws(FileSystemError) {
      if try files.check(blob) == .intact { return .intact }
      var bytes: [UInt8]
      do throws(BlobError) {
        bytes = try deviceBlobs.read(blob)
      } catch {
        switch error {
        case .missing, .corrupt:
          return .missingHere
        case .unreadable(_, let failure), .io(let failure):
          // An I/O error reading this device's copy is not a missing photo: going on without
          // it would never send the photo again.
          throw failure
        case .tooLarge(let path, let size):
          throw FileSystemError(
            operation: "read", path: path, code: 0, reason: "it holds \(size) bytes")
        }
      }
      if let kind = try files.kind(of: relative), kind != .directory {
        try fileSystem.removeFile(files.absolute(relative))
      }
      if let key = keyring?.current {
        do throws(CryptoError) {
          bytes = try SharedFiles.sealPhoto(bytes, ref: blob, key: key)
        } catch {
          throw FileSystemError(
            operation: "seal", path: relative, code: 0, reason: error.description)
        }
      }
      switch try files.publish(bytes, as: relative, unique: RecordID.make().rawValue) {
      case .published: return .published
      case .exists: return .intact
      case .unsafe(let path, let kind): return .unsafe(path: path, kind: kind)
      }
    } catch {
      throw .io(error)
    }
  }

  /// The photos that versions in `content` name, that this device holds (a file of the right
  /// size in `deviceBlobs`), and that the shared folder lacks; writes nothing.
  ///
  /// Each shared copy is checked by its size and then its SHA-256, read in pieces, unless
  /// `knownIntact` vouches for it (the caller remembers copies found intact before, unchanged
  /// since). A photo whose shared copy cannot be read at all is left out: publishing it would
  /// fail the same way, and the import reports the folder.
  ///
  /// - Parameters:
  ///   - content: The mirror: every version it holds, from every device, counts (a device
  ///     set up later reads them all).
  ///   - deviceBlobs: This device's photos.
  ///   - summary: For a focused mirror, its index's summary: the photos of the versions it
  ///     did not load (``MirrorStore/indexedSummary()``).
  ///   - knownIntact: Whether the shared copy of a photo is known to be intact.
  /// - Returns: The lacking photos, by digest.
  public func lackingPhotos(
    in content: MirrorContent, deviceBlobs: BlobStore, summary: MirrorSummary? = nil,
    knownIntact: (BlobRef) -> Bool = { _ in false }
  ) -> [LackingPhoto] {
    let refs = content.photos(summary: summary)
    var lacking = [LackingPhoto]()
    for digest in refs.keys.sorted() {
      let ref = refs[digest]!
      guard holds(ref, in: deviceBlobs), !knownIntact(ref) else { continue }
      switch try? files.check(ref) {
      case .intact?, nil: continue
      case .damaged(let reason)?:
        lacking.append(LackingPhoto(photo: ref, problem: reason))
      case .waiting(let reason)?:
        let there = try? files.kind(of: files.photoPath(ref))
        lacking.append(
          LackingPhoto(
            photo: ref,
            problem: there == nil
              ? "it is missing (removed, or renamed by the sync tool)"
              : reason + " (cut short, or still arriving)"))
      }
    }
    return lacking
  }

  /// The name under `blobs/` this device writes the photo as: its SHA-256 in a plain folder,
  /// its keyed name (with the current key) in an encrypted one.
  ///
  /// - Parameter photo: The photo.
  /// - Returns: The file name, without `blobs/`.
  public func sharedPhotoName(_ photo: BlobRef) -> String {
    String(files.photoPath(photo).dropFirst("blobs/".count))
  }

  /// Publishes `lacking` photos again (see ``lackingPhotos(in:deviceBlobs:summary:knownIntact:)``).
  ///
  /// - Returns: The photos published.
  /// - Throws: ``CloudError`` when a file cannot be read or written; the photos published
  ///   before stay.
  public func publishAgain(
    _ lacking: [LackingPhoto], from deviceBlobs: BlobStore
  ) throws(CloudError) -> [BlobRef] {
    var published = [BlobRef]()
    for photo in lacking where try publishPhoto(photo.photo, from: deviceBlobs) == .published {
      published.append(photo.photo)
    }
    return published
  }

  /// Whether this device holds a file of the photo's size (read and checked when published).
  private func holds(_ ref: BlobRef, in deviceBlobs: BlobStore) -> Bool {
    let path = deviceBlobs.path(for: ref.digest)
    guard let identity = try? fileSystem.identity(atPath: path, followingLinks: false) else {
      return false
    }
    return identity.kind == .regular && identity.size == ref.size
  }
}
