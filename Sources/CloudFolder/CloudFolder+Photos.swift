import JSONLines
import MirrorStore
import StashBase
import StashFiles
import StashModel

/// A photo of the shared folder, as checked before it is used.
enum SharedPhoto: Equatable {
  /// Intact: its size and digest match its reference.
  case intact
  /// Not complete yet: missing, or shorter than its size.
  case waiting(String)
  /// Complete but wrong: longer than its size, other bytes, not a regular file.
  case damaged(String)
}

extension SharedFiles {
  /// The path of a photo in the shared folder.
  static func photoPath(_ ref: BlobRef) -> String { "blobs/" + ref.digest.hex }

  /// Checks a shared photo without keeping its bytes: the size first, then the digest, read
  /// in pieces (a photo of the largest size costs a small buffer, not its size in memory).
  func check(_ ref: BlobRef) throws(FileSystemError) -> SharedPhoto {
    if let keyring { return try readSealedPhoto(ref, keyring: keyring).1 }
    return try withPhoto(ref) { (descriptor, size) throws(FileSystemError) in
      var hasher = SHA256()
      var offset: Int64 = 0
      while offset < size {
        let piece = try fileSystem.read(
          descriptor, count: Int(min(1 << 20, size - offset)), at: offset)
        if piece.isEmpty { break }
        hasher.update(piece)
        offset += Int64(piece.count)
      }
      return offset == size && hasher.finalize() == ref.digest ? [] : nil
    }.state
  }

  /// Reads a shared photo whole, if it is intact (its size is at most
  /// ``CloudLimits/photoBytes``: checked before anything is read).
  func readPhoto(_ ref: BlobRef) throws(FileSystemError) -> ([UInt8]?, SharedPhoto) {
    if let keyring { return try readSealedPhoto(ref, keyring: keyring) }
    let (bytes, state) = try withPhoto(ref) { (descriptor, size) throws(FileSystemError) in
      let bytes = try fileSystem.read(descriptor, count: Int(size), at: 0)
      return bytes.count == size && SHA256.hash(bytes) == ref.digest ? bytes : nil
    }
    return (bytes, state)
  }

  /// Opens a shared photo as a regular file and compares its size with its reference; when
  /// the size is right, `verify` reads it and returns its bytes (or an empty array when they
  /// need not be kept), or `nil` when they do not match the digest.
  private func withPhoto(
    _ ref: BlobRef, verify: (FileDescriptor, Int64) throws(FileSystemError) -> [UInt8]?
  ) throws(FileSystemError) -> (bytes: [UInt8]?, state: SharedPhoto) {
    guard (0...CloudLimits.photoBytes).contains(ref.size) else {
      return (nil, .damaged("it claims \(ref.size) bytes, more than a photo may have"))
    }
    let opened = try withRegularFile(Self.photoPath(ref)) {
      (descriptor, size) throws(FileSystemError) -> ([UInt8]?, SharedPhoto) in
      if size < ref.size {
        return (nil, .waiting("it has \(size) of its \(ref.size) bytes so far"))
      }
      if size > ref.size { return (nil, .damaged("it holds \(size) bytes, not \(ref.size)")) }
      guard let bytes = try verify(descriptor, size) else {
        return (nil, .damaged("its bytes do not match its name"))
      }
      return (bytes, .intact)
    }
    switch opened {
    case .opened(let result): return result
    case .missing: return (nil, .waiting("it has not arrived yet"))
    case .notRegular(let culprit, let kind):
      return (nil, .damaged("'\(culprit)' is a \(kind.noun), not a regular file"))
    }
  }
}

/// The photos an import needs, checked once each and copied into the device's blobs.
struct PhotoCheck {
  let files: SharedFiles
  let deviceBlobs: BlobStore
  /// Whether intact photos are copied into the device's blobs (an import) or only checked
  /// (`sync status`).
  let copying: Bool
  /// Photos copied into the device's blobs.
  private(set) var copied = 0
  private var known: [SHA256Digest: SharedPhoto] = [:]

  init(files: SharedFiles, deviceBlobs: BlobStore, copying: Bool) {
    self.files = files
    self.deviceBlobs = deviceBlobs
    self.copying = copying
  }

  /// Makes sure every photo `versions` name is in the device's blobs, copying intact ones
  /// from the shared folder.
  ///
  /// - Returns: Whether the record must wait (a photo still arriving) or is held back (a
  ///   damaged photo); `report` says which and why.
  mutating func holdsBack(
    _ versions: [MirrorVersion], of key: RecordKey, in path: String,
    report: inout ImportReport
  ) -> Bool {
    let record = "\(key.model) '\(key.id.rawValue.prefix(8))'"
    for ref in Set(versions.flatMap(\.blobs)).sorted(by: { $0.digest < $1.digest }) {
      let photo = "'\(ref.digest.hex.prefix(12))'"
      switch state(of: ref) {
      case .intact: continue
      case .waiting(let reason):
        report.waiting.append(
          .init(segment: path, reason: "the \(record) waits for its photo \(photo): \(reason)"))
        return true
      case .damaged(let reason):
        report.rejected.append(
          .init(
            segment: path,
            reason: "the \(record) is held back: its photo \(photo) is damaged (\(reason))"))
        return true
      }
    }
    return false
  }

  private mutating func state(of ref: BlobRef) -> SharedPhoto {
    if let state = known[ref.digest] { return state }
    let state: SharedPhoto
    if deviceBlobs.check(ref) == .present {
      state = .intact
    } else {
      state = fetch(ref)
    }
    known[ref.digest] = state
    return state
  }

  private mutating func fetch(_ ref: BlobRef) -> SharedPhoto {
    guard copying else {
      do { return try files.check(ref) } catch { return .waiting(error.reason) }
    }
    do {
      let (bytes, state) = try files.readPhoto(ref)
      guard let bytes else { return state }
      do {
        try deviceBlobs.store(bytes)
      } catch {
        return .waiting("it could not be copied into this device's blobs (\(error))")
      }
      copied += 1
      return .intact
    } catch {
      return .waiting("it cannot be read yet (\(error.reason))")
    }
  }
}
