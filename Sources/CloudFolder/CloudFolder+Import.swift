public import JSONLines
public import MirrorStore
public import StashModel

/// What an import did.
public struct ImportReport: Hashable, Sendable {
  /// An empty report.
  public init() {}

  /// Segments read and applied.
  public var segmentsRead = 0
  /// Versions the mirror did not know before.
  public var versionsImported = 0
  /// Photos copied from the shared folder.
  public var blobsCopied = 0
  /// Segments rejected (a hash that does not match its payload, a truncated or garbled line, a
  /// damaged photo): relative path and reason. They were not applied, and are read again next
  /// time (a sync tool may still be delivering them).
  public var rejected: [Rejection] = []

  /// A rejected segment.
  public struct Rejection: Hashable, Sendable, CustomStringConvertible {
    /// The segment, relative to the shared folder.
    public let segment: String
    /// Why.
    public let reason: String

    public var description: String { "'\(segment)': \(reason)" }
  }
}

extension CloudFolder {
  /// Reads the segments this mirror has not read and merges their versions into it.
  ///
  /// Temporary and partial names (`.*`, `*.tmp`, `~*`) are ignored; "conflicted copy"
  /// duplicates made by sync tools are read like any segment, harmlessly. Every version's hash
  /// is checked against its payload and every photo it names against its digest; a segment
  /// with any problem is rejected whole and reported, never applied. The result does not depend
  /// on the order segments arrive in, nor on repeats.
  ///
  /// - Parameters:
  ///   - mirror: The mirror to merge into.
  ///   - deviceBlobs: This device's photos (photos of accepted segments are copied there).
  ///   - time: When, for `sync status`.
  ///   - post: Receives the import's started and finished events: the finished, successful one
  ///     is what opens the sync coordinator's gate.
  /// - Returns: What was read.
  /// - Throws: ``CloudError`` when the folder is unreachable or of another zone; the mirror is
  ///   then unchanged and the finished event reports the failure.
  @discardableResult
  public func importNew(
    into mirror: MirrorStore, deviceBlobs: BlobStore, at time: Timestamp,
    post: (MirrorEvent) -> Void = { _ in }
  ) throws(CloudError) -> ImportReport {
    try reporting(.import, for: mirror, post: post) { () throws(CloudError) in
      try importSegments(into: mirror, deviceBlobs: deviceBlobs, at: time)
    }
  }

  private func importSegments(
    into mirror: MirrorStore, deviceBlobs: BlobStore, at time: Timestamp
  ) throws(CloudError) -> ImportReport {
    let zone = try bind(mirror)
    let content = mirror.content
    var report = ImportReport()
    var accepted = [(path: String, versions: [MirrorVersion])]()
    var peers = [DeviceID: Peer]()
    for path in try unreadSegments(content) {
      let segment: Segment
      do {
        segment = try Segment(bytes: try readWhole(root + "/" + path), schemas: content.schemas)
      } catch let problem as SegmentProblem {
        report.rejected.append(.init(segment: path, reason: problem.reason))
        continue
      } catch {
        report.rejected.append(.init(segment: path, reason: "it cannot be read: \(error)"))
        continue
      }
      guard segment.zone == zone else {
        report.rejected.append(.init(segment: path, reason: "it belongs to zone '\(segment.zone)'"))
        continue
      }
      if let problem = fetchBlobs(of: segment, into: deviceBlobs, report: &report) {
        report.rejected.append(.init(segment: path, reason: problem))
        continue
      }
      accepted.append((path, segment.versions))
      if segment.device != content.deviceID {
        let device = segment.device
        peers[device] = Peer.updated(
          peers[device] ?? content.peers[device], device: device, name: segment.deviceName,
          wroteAt: segment.written)
      }
    }
    // Nothing accepted: nothing to write (a repeated import, or only rejected segments, leaves
    // the mirror byte for byte as it was).
    guard !accepted.isEmpty else { return report }
    let known = content.versions
    let fresh = Set(
      accepted.flatMap(\.versions).filter { known[$0.key]?[$0.id] == nil }.map(\.ref))
    do {
      try mirror.update { _, transaction in
        for (path, versions) in accepted {
          for version in versions { transaction.merge(version) }
          transaction.markRead(segment: path)
        }
        for device in peers.keys.sorted() where peers[device] != content.peers[device] {
          transaction.notePeer(peers[device]!)
        }
        transaction.recordTransfer(.import, at: time)
      }
    } catch {
      throw .mirror("\(error)")
    }
    report.segmentsRead = accepted.count
    report.versionsImported = fresh.count
    return report
  }

  /// Every segment in the folder this mirror has not read, in a stable order.
  private func unreadSegments(_ content: MirrorContent) throws(CloudError) -> [String] {
    guard (try? fileSystem.identity(atPath: devicesPath)) != nil else { return [] }
    var found = [String]()
    do {
      for device in try fileSystem.contentsOfDirectory(devicesPath).sorted()
      where DeviceID(device) != nil {
        for name in try fileSystem.contentsOfDirectory(devicesPath + "/" + device).sorted()
        where Self.isSegmentName(name) {
          let path = "devices/\(device)/\(name)"
          if !content.readSegments.contains(path) { found.append(path) }
        }
      }
    } catch {
      throw .unreachable(root, error.reason)
    }
    return found
  }

  /// Whether a file name is a finished segment: temporary and partial names are not.
  static func isSegmentName(_ name: String) -> Bool {
    !name.hasPrefix(".") && !name.hasPrefix("~") && !name.hasSuffix(".tmp")
      && name.hasSuffix(".jsonl")
  }

  /// Copies a segment's photos into the device's blobs, checking each; returns why the segment
  /// must wait or be rejected, if it must.
  private func fetchBlobs(
    of segment: Segment, into deviceBlobs: BlobStore, report: inout ImportReport
  ) -> String? {
    for blob in Set(segment.blobs).sorted(by: { $0.digest < $1.digest })
    where deviceBlobs.check(blob) != .present {
      switch blobs.check(blob) {
      case .present:
        do {
          try deviceBlobs.copy(blob, from: blobs)
          report.blobsCopied += 1
        } catch {
          return "its photo '\(blob.digest.hex.prefix(12))' could not be copied: \(error)"
        }
      case .missing:
        return "its photo '\(blob.digest.hex.prefix(12))' has not arrived yet"
      case .corrupt(let reason):
        return "its photo '\(blob.digest.hex.prefix(12))' is damaged: \(reason)"
      }
    }
    return nil
  }
}
