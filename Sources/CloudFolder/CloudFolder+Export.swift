import Foundation
public import JSONLines
public import MirrorStore
public import StashModel

/// What an export did.
public struct ExportReport: Hashable, Sendable {
  /// An empty report.
  public init() {}

  /// The versions written.
  public var versions = 0
  /// The segment written (relative to the shared folder), if any.
  public var segment: String?
  /// Photos copied to the shared folder.
  public var blobsCopied = 0
  /// Photos that could not be copied (missing or damaged here); their segment waits on other
  /// devices until a good copy arrives.
  public var blobsMissing: [String] = []
}

extension CloudFolder {
  /// Writes the mirror's pending versions as one new segment of this device.
  ///
  /// Photos go first (each to `blobs/<sha256>`, temp + rename), then the segment (to a
  /// temporary name, synchronized, renamed), then the mirror records what was exported. A
  /// crash before that last step exports the same versions again next time, which is harmless:
  /// importing a version twice changes nothing.
  ///
  /// - Parameters:
  ///   - mirror: The mirror whose pending versions to send.
  ///   - deviceBlobs: This device's photos.
  ///   - post: Receives the export's started and finished events.
  /// - Returns: What was written.
  /// - Throws: ``CloudError``; the mirror is then unchanged.
  @discardableResult
  public func export(
    from mirror: MirrorStore, deviceBlobs: BlobStore, at time: Timestamp,
    deviceName: String? = nil, post: (MirrorEvent) -> Void = { _ in }
  ) throws(CloudError) -> ExportReport {
    try reporting(.export, for: mirror, post: post) { () throws(CloudError) in
      try exportPending(from: mirror, deviceBlobs: deviceBlobs, at: time, deviceName: deviceName)
    }
  }

  private func exportPending(
    from mirror: MirrorStore, deviceBlobs: BlobStore, at time: Timestamp, deviceName: String?
  ) throws(CloudError) -> ExportReport {
    let zone = try bind(mirror)
    let content = mirror.content
    let pending = content.pendingVersions
    var report = ExportReport()
    guard !pending.isEmpty else { return report }
    let device = content.deviceID
    var segment = Segment(
      zone: zone, device: device, sequence: try nextSequence(for: device, content: content),
      versions: pending)
    segment.deviceName = deviceName
    segment.written = time
    for blob in Set(segment.blobs).sorted(by: { $0.digest < $1.digest }) {
      do {
        if blobs.check(blob) != .present {
          try blobs.copy(blob, from: deviceBlobs)
          report.blobsCopied += 1
        }
      } catch .io(let error) {
        throw .io(error)
      } catch .unreadable(_, let error) {
        // An I/O error reading this device's copy is not a missing photo: exporting the
        // segment without it would never send the photo again.
        throw .io(error)
      } catch {
        report.blobsMissing.append(blob.digest.hex)
      }
    }
    let relative = Self.segmentPath(device: device, sequence: segment.sequence)
    let folder = devicesPath + "/" + device.rawValue
    let temporary = folder + "/." + String(format: "%06d", segment.sequence) + ".jsonl.tmp"
    do {
      try fileSystem.makeDirectory(folder)
      try fileSystem.removeFile(temporary)
      let descriptor = try fileSystem.open(temporary, .createNew)
      defer { fileSystem.close(descriptor) }
      try fileSystem.write(descriptor, segment.encoded(), at: 0)
      try fileSystem.synchronize(descriptor)
      try fileSystem.rename(temporary, to: root + "/" + relative)
      try fileSystem.synchronizeDirectory(folder)
    } catch {
      try? fileSystem.removeFile(temporary)
      throw .io(error)
    }
    do {
      try mirror.update { _, transaction in
        transaction.markExported(
          pending.map(\.ref), segment: relative)
        transaction.markRead(segment: relative)
        transaction.recordTransfer(.export, at: time)
      }
    } catch {
      throw .mirror("\(error)")
    }
    report.versions = pending.count
    report.segment = relative
    return report
  }

  /// One more than the highest sequence this device ever wrote (in the folder or, if the
  /// folder lost files, in the mirror's record of its exports).
  private func nextSequence(for device: DeviceID, content: MirrorContent) throws(CloudError) -> Int
  {
    let folder = devicesPath + "/" + device.rawValue
    var highest = content.exportedSegments.compactMap(Self.sequence(of:)).max() ?? 0
    if (try? fileSystem.identity(atPath: folder)) != nil {
      do {
        for name in try fileSystem.contentsOfDirectory(folder) {
          highest = max(highest, Self.sequence(of: name) ?? 0)
        }
      } catch {
        throw .io(error)
      }
    }
    return highest + 1
  }

  /// The sequence number a segment's file name starts with (`000012.jsonl`, and the
  /// "conflicted copy" names sync tools make of it).
  static func sequence(of path: String) -> Int? {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    return Int(name.prefix { $0.isNumber })
  }
}
