import Foundation
import JSONLines
public import MirrorStore
import StashBase
import StashCrypto
public import StashFiles
public import StashModel

/// What an export did.
public struct ExportReport: Hashable, Sendable {
  /// An empty report.
  public init() {}

  /// The versions written.
  public var versions = 0
  /// The first segment written (relative to the shared folder), if any.
  public var segment: String? { segments.first }
  /// Every segment written: the pending versions are split so that none passes
  /// ``CloudLimits/segmentBytes``.
  public var segments: [String] = []
  /// Photos copied to the shared folder.
  public var blobsCopied = 0
  /// Photos that could not be copied (missing or damaged here); their segment waits on other
  /// devices until a good copy arrives.
  public var blobsMissing: [String] = []
  /// Why nothing (or not everything) was exported: another copy of this device writes in its
  /// folder, a segment it wrote is gone, or its folder is a link. The versions stay pending.
  public var stopped: OwnFolderProblem?
}

extension CloudFolder {
  /// Writes the mirror's pending versions as new segments of this device.
  ///
  /// What one export writes arrives on other devices whole: when it takes several segments,
  /// they are parts of one unit (``Segment/Unit``) that readers merge only once every part
  /// is there, and an export interrupted between parts is finished by the next one, whose
  /// segments continue the same unit.
  ///
  /// First this device's own folder is checked: a segment there that it did not write (a copy
  /// of this device folder running elsewhere) or one it wrote that is gone stops the export
  /// (``ExportReport/stopped``). Then photos go to `blobs/`, and each segment is published
  /// without ever replacing a file (``SharedFiles/publish(_:as:unique:)``): its export
  /// identifier is recorded in the mirror first, then the file is published, then the mirror
  /// records what was exported. A crash before that last step exports the same versions again
  /// next time, which is harmless: importing a version twice changes nothing. A name already
  /// taken when publishing means another writer uses this device's id: the export stops.
  ///
  /// - Parameters:
  ///   - mirror: The mirror whose pending versions to send.
  ///   - deviceBlobs: This device's photos.
  ///   - time: When, written in each segment's header and for `sync status`.
  ///   - deviceName: This device's name, written in each segment's header so that other
  ///     devices can name it to people.
  ///   - post: Receives the export's started and finished events.
  /// - Returns: What was written.
  /// - Throws: ``CloudError``; the versions not exported stay pending.
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
    let zone = try bind(mirror).zone
    let content = mirror.content
    var report = ExportReport()
    let survey = try surveyOwnFolder(content)
    if let problem = survey.problem {
      report.stopped = problem
      return report
    }
    let pending = content.pendingVersions
    guard !pending.isEmpty else { return report }
    let lacking = lackingKeys
    if !lacking.isEmpty {
      report.stopped = .lacksKey(keys: lacking.map(\.hex))
      return report
    }
    // The mirror's lines are not re-hashed on open: what leaves for other devices is checked.
    do {
      try mirror.verify(pending)
    } catch {
      throw .untrustedVersion(error)
    }
    let device = content.deviceID
    var sequence = nextSequence(after: survey, device: device, content: content)
    var chunks = SegmentChunks(of: pending)
    // An export of several segments is one unit (``Segment/Unit``), and so is one that goes
    // on with the unit an interrupted export left unfinished.
    var unit = survey.unfinishedUnit
    var chunk = chunks.next()
    let inUnit = unit != nil || !chunks.isFinished
    while let (versions, lines) = chunk {
      let isLast = chunks.isFinished
      guard sequence <= CloudLimits.sequence else {
        throw .io(
          FileSystemError(
            operation: "number", path: "devices/\(device.rawValue)", code: 0,
            reason: "no segment number is left"))
      }
      let export = RecordID.make().rawValue
      if inUnit {
        unit = Segment.Unit(
          id: unit?.id ?? export, part: (unit?.part ?? 0) + 1, isLast: isLast)
      }
      let segment = Segment(
        zone: zone, device: device, sequence: sequence, versions: versions, export: export,
        writer: Segment.Writer(name: deviceName, written: time), unit: unit)
      sequence += 1
      try copyPhotos(of: segment, from: deviceBlobs, report: &report)
      if report.stopped != nil { return report }
      let relative = Self.segmentPath(device: device, sequence: segment.sequence)
      try save(mirror) { _, transaction in
        transaction.markExporting(segment: relative, export: export)
      }
      var bytes = segment.encoded(lines: lines)
      if let keyring {
        do {
          bytes = try SealedSegment.seal(bytes, of: segment, key: keyring.current)
        } catch {
          throw .sealing(error.description)
        }
      }
      let published: SharedFiles.Published
      do {
        published = try files.publish(bytes, as: relative, unique: export)
      } catch {
        throw .io(error)
      }
      switch published {
      case .published:
        break
      case .exists:
        report.stopped = .writtenElsewhere(device: device, segments: [relative])
        return report
      case .unsafe(let path, let kind):
        report.stopped = .unsafe(path: path, kind: kind)
        return report
      }
      try save(mirror) { _, transaction in
        transaction.markExported(versions.map(\.ref), segment: relative)
        transaction.markRead(segment: relative)
        transaction.recordTransfer(.export, at: time)
      }
      report.versions += versions.count
      report.segments.append(relative)
      chunk = chunks.next()
    }
    return report
  }

  /// Copies a segment's photos to the shared folder (``publishPhoto(_:from:)``).
  private func copyPhotos(
    of segment: Segment, from deviceBlobs: BlobStore, report: inout ExportReport
  ) throws(CloudError) {
    for blob in Set(segment.blobs).sorted(by: { $0.digest < $1.digest }) {
      switch try publishPhoto(blob, from: deviceBlobs) {
      case .intact: continue
      case .published: report.blobsCopied += 1
      case .missingHere: report.blobsMissing.append(blob.digest.hex)
      case .unsafe(let path, let kind):
        report.stopped = .unsafe(path: path, kind: kind)
        return
      }
    }
  }

  /// One more than the highest sequence this device ever used (in the folder, or in the
  /// mirror's record of its exports if the folder lost files).
  private func nextSequence(
    after survey: OwnFolderSurvey, device: DeviceID, content: MirrorContent
  ) -> Int64 {
    let own = "devices/\(device.rawValue)/"
    let recorded = (content.exportedSegments + Array(content.exportIDs.values))
      .filter { $0.hasPrefix(own) }.compactMap(Self.sequence(of:))
    return max(survey.highestSequence, recorded.max() ?? 0) + 1
  }
}
