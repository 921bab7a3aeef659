import JSONLines
public import MirrorStore
public import StashFiles
import StashModel

/// What is waiting in the shared folder, and what stops this device from exporting, as
/// `sync status` shows it.
public struct FolderSurvey: Hashable, Sendable {
  /// An empty survey.
  public init() {}

  /// Files (or records in them) not complete yet: the next sync reads them again.
  public var waiting: [ImportReport.Rejection] = []
  /// What the next sync would reject.
  public var rejected: [ImportReport.Rejection] = []
  /// Why this device would not export, if it would not.
  public var ownFolder: OwnFolderProblem?
  /// Other zones in the folder, as the next import would report them.
  public var otherZones: [ZoneSighting] = []
  /// Whether the folder's `zone.json` is missing (the next sync publishes it again).
  public var zoneFileMissing = false
}

extension CloudFolder {
  /// Looks at the shared folder the way the next import and export would, without writing
  /// anything (neither the mirror, nor the device's blobs, nor the folder).
  ///
  /// - Parameters:
  ///   - mirror: This device's mirror.
  ///   - deviceBlobs: This device's photos.
  /// - Returns: What is waiting and what would be rejected.
  /// - Throws: ``CloudError`` when the folder cannot be used at all (unreachable, a zone file
  ///   that cannot be read, another account's zone).
  public func survey(_ mirror: MirrorStore, deviceBlobs: BlobStore) throws(CloudError)
    -> FolderSurvey
  {
    let content = mirror.content
    guard let binding = try lookingBinding(of: content) else { return FolderSurvey() }
    var photos = PhotoCheck(files: files, deviceBlobs: deviceBlobs, copying: false)
    let plan = try planImport(content, binding: binding, photos: &photos)
    var survey = FolderSurvey()
    survey.waiting = plan.report.waiting
    survey.rejected = plan.report.rejected
    survey.otherZones = plan.report.otherZones
    survey.zoneFileMissing = binding.zoneFile == nil
    survey.ownFolder = try surveyOwnFolder(content).problem
    return survey
  }
}
