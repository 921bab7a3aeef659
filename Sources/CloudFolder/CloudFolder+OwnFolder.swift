import JSONLines
public import MirrorStore
public import StashFiles
public import StashModel

/// Why this device must not export: another writer uses its folder in the shared folder.
///
/// A device folder restored from a backup onto a second machine (or copied) runs with the same
/// device id as the original: both would write the same segment names, a sync tool would keep
/// one and rename the other, and edits would silently stop travelling. The device notices a
/// segment under its own id that it did not write (its header carries an export identifier
/// the mirror never recorded), or that one it wrote is gone, and stops exporting until it is
/// given a new identity (`stash sync new-identity`).
public enum OwnFolderProblem: Hashable, Sendable, CustomStringConvertible {
  /// Segments under this device's id that it did not write.
  case writtenElsewhere(device: DeviceID, segments: [String])
  /// Segments this device exported that are gone from the shared folder.
  case missing(device: DeviceID, segments: [String])
  /// This device's folder in the shared folder is a link or a special file.
  case unsafe(path: String, kind: FileKind)
  /// The encrypted folder names keys this device lacks (a rotation it was not given yet):
  /// what it would write could be rejected, so it writes nothing until the key is entered.
  case lacksKey(keys: [String])

  public var description: String {
    switch self {
    case .writtenElsewhere(_, let segments):
      "Another copy of this device folder (a backup restored on a second machine?) also "
        + "syncs as this device: '\(segments[0])'"
        + (segments.count > 1 ? " and \(segments.count - 1) more" : "")
        + " in the shared folder were not written here. Nothing was exported, so the copies "
        + "cannot overwrite each other's changes; a new identity of its own keeps all this "
        + "device's data and exports it again; give this device a new identity"
    case .missing(_, let segments):
      "The segment '\(segments[0])' this device exported"
        + (segments.count > 1 ? " (and \(segments.count - 1) more)" : "")
        + " is gone from the shared folder (removed, or renamed by the sync tool); nothing was "
        + "exported; if it does not come back, a new identity keeps all this device's data and "
        + "exports it again; give this device a new identity"
    case .unsafe(let path, let kind):
      "'\(path)' in the shared folder is a \(kind.noun) where this device's folder should be; "
        + "sync never writes through it, so nothing was exported; remove it, then sync again"
    case .lacksKey(let keys):
      "The shared folder's key was rotated and this device lacks the new key '\(keys[0])': "
        + "nothing was read or exported, the inventory here works as usual; enter the new key"
    }
  }
}

/// What this device's own folder in the shared folder holds.
struct OwnFolderSurvey {
  /// Why the device must not export, if it must not.
  var problem: OwnFolderProblem?
  /// Segments under this device's id written by another copy of it: imported even when a
  /// file of that name was marked read (a sync tool may have put the other copy's file under
  /// a name this device wrote).
  var foreign: [String] = []
  /// Files under names this device recorded before publishing but never finished (a crash
  /// while writing in place where the file system has no hard links). They count as its own;
  /// they are left alone, since an incomplete header cannot prove whose they are, and their
  /// versions, still pending, go out in the next segment.
  var unfinished: [String] = []
  /// The highest sequence number in the folder's names (in range).
  var highestSequence: Int64 = 0
  /// The last part this device published of an export it did not finish (interrupted after
  /// some of its segments): the next export goes on with that unit, so the parts published
  /// reach other devices, whole, with the rest.
  var unfinishedUnit: Segment.Unit?
}

extension CloudFolder {
  /// This device's own folder's problem (a copy of this device writes there, or a segment it
  /// wrote is gone), read without changing anything.
  ///
  /// - Returns: `nil` when all is well, or when the folder cannot be reached (that is
  ///   reported elsewhere).
  public func ownFolderProblem(of mirror: MirrorStore) -> OwnFolderProblem? {
    (try? surveyOwnFolder(mirror.content))?.problem
  }

  /// Reads the header line of every segment in this device's own folder and sorts them into
  /// its own (by export identifier, or for segments written before identifiers existed, by a
  /// name it recorded) and those of another writer.
  func surveyOwnFolder(_ content: MirrorContent) throws(CloudError) -> OwnFolderSurvey {
    // An unmounted share lists as nothing: that is not "my segments are gone".
    try checkReachable()
    let device = content.deviceID
    let own = "devices/\(device.rawValue)"
    var survey = OwnFolderSurvey()
    let names: [String]
    do {
      switch try files.list(own) {
      case .missing: names = []
      case .names(let found): names = found.sorted()
      case .notAFolder(let path, let kind):
        survey.problem = .unsafe(path: path, kind: kind)
        return survey
      }
    } catch {
      throw .unreachable(root, error.reason)
    }
    let exported = Set(content.exportedSegments.filter { $0.hasPrefix(own + "/") })
    var exportOf = [String: String]()
    for (export, path) in content.exportIDs where path.hasPrefix(own + "/") {
      exportOf[path] = export
    }
    var presentExports = Set<String>()
    var presentNames = Set<String>()
    var units = [(sequence: Int64, unit: Segment.Unit)]()
    for name in names where Self.isSegmentName(name) {
      let path = own + "/" + name
      if let sequence = Self.sequence(of: name) {
        survey.highestSequence = max(survey.highestSequence, sequence)
      }
      let read: SharedFiles.Read
      do {
        read = try files.readPrefix(path, count: CloudLimits.headerBytes)
      } catch {
        throw .io(error)
      }
      guard case .bytes(let prefix) = read else {
        if case .missing = read { continue }
        survey.foreign.append(path)
        continue
      }
      let header = Segment.Header.find(in: prefix)
      if let header, header.device == device {
        if let export = header.export, content.exportIDs[export] != nil {
          presentExports.insert(export)
          if let unit = header.unit { units.append((header.sequence, unit)) }
          continue
        }
        if header.export == nil, exported.contains(path) {
          presentNames.insert(path)
          continue
        }
      }
      if header == nil, exportOf[path] != nil, !exported.contains(path) {
        survey.unfinished.append(path)
        continue
      }
      survey.foreign.append(path)
    }
    let gone = exported.sorted().filter { path in
      if let export = exportOf[path] { return !presentExports.contains(export) }
      return !presentNames.contains(path)
    }
    survey.unfinishedUnit = Self.unfinishedUnit(among: units)
    if !survey.foreign.isEmpty {
      survey.problem = .writtenElsewhere(device: device, segments: survey.foreign)
    } else if !gone.isEmpty {
      survey.problem = .missing(device: device, segments: gone)
    }
    return survey
  }

  /// The highest part of the latest unit whose last part is not among `units` (this device's
  /// own published parts).
  static func unfinishedUnit(among units: [(sequence: Int64, unit: Segment.Unit)]) -> Segment.Unit?
  {
    let finished = Set(units.lazy.filter(\.unit.isLast).map(\.unit.id))
    return units.filter { !finished.contains($0.unit.id) }
      .max { ($0.sequence, $0.unit.part) < ($1.sequence, $1.unit.part) }?.unit
  }

  /// Whether a file name is a finished segment: temporary and partial names (`.*`, `~*`,
  /// and every spelling ``TemporaryName/isTemporary(_:)`` knows) are not.
  static func isSegmentName(_ name: String) -> Bool {
    !name.hasPrefix(".") && !name.hasPrefix("~") && !TemporaryName.isTemporary(name)
      && name.hasSuffix(".jsonl")
  }

  /// The sequence number a segment's file name starts with (`000012.jsonl`, and the
  /// "conflicted copy" names sync tools make of it), when it is in range.
  static func sequence(of path: String) -> Int64? {
    let name = path.split(separator: "/").last.map(String.init) ?? path
    let digits = name.prefix { $0.isASCII && $0.isNumber }
    guard !digits.isEmpty, digits.count <= 12, let number = Int64(digits),
      (1...CloudLimits.sequence).contains(number)
    else { return nil }
    return number
  }
}
