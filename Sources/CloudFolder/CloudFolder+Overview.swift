import JSONLines
public import MirrorStore
public import StashFiles
public import StashModel

/// What the shared folder holds, as `sync verify` and `sync status` compare it: the mirror
/// with every complete segment not read yet merged in (in memory), and the devices that write
/// there.
public struct FolderView: Sendable {
  /// The mirror's content with the unread complete segments merged in: what an import now
  /// would make of it.
  public var content: MirrorContent
  /// Complete segments not read yet (merged into ``content``).
  public var unreadSegments = 0
  /// Every device with a folder under `devices/`, with how many segment files it holds.
  public var deviceSegments: [DeviceID: Int] = [:]
  /// Files (or records in them) not complete yet, as the next import would report them.
  public var waiting: [ImportReport.Rejection] = []
  /// What the next import would reject.
  public var rejected: [ImportReport.Rejection] = []
  /// Other zones in the folder, as the next import would report them.
  public var otherZones: [ZoneSighting] = []
}

/// A file of the shared folder that was not applied, and why (the name modules with an
/// `ImportReport` of their own use).
public typealias SharedFolderRejection = ImportReport.Rejection

extension CloudFolder {
  /// Looks at the shared folder the way the next import would, without writing anything, and
  /// returns the mirror as that import would leave it.
  ///
  /// - Parameters:
  ///   - mirror: This device's mirror.
  ///   - deviceBlobs: This device's photos (records whose photo is still arriving wait, as in
  ///     an import).
  /// - Returns: The view.
  /// - Throws: ``CloudError`` when the folder cannot be used (unreachable, a zone file that
  ///   cannot be read, another account's zone).
  public func view(of mirror: MirrorStore, deviceBlobs: BlobStore) throws(CloudError)
    -> FolderView
  {
    var content = mirror.content
    guard let binding = try lookingBinding(of: content) else {
      return FolderView(content: content)
    }
    var photos = PhotoCheck(files: files, deviceBlobs: deviceBlobs, copying: false)
    let plan = try planImport(content, binding: binding, photos: &photos)
    for version in plan.merge.versions { content.apply(.addVersion(version, pending: false)) }
    var view = FolderView(content: content, unreadSegments: plan.read.count)
    view.waiting = plan.report.waiting
    view.rejected = plan.report.rejected
    view.otherZones = plan.report.otherZones
    view.deviceSegments = try deviceSegmentCounts()
    return view
  }

  /// The binding the next import would use, writing nothing: `nil` for a mirror not bound yet
  /// in a folder without `zone.json` (the import would make the zone).
  func lookingBinding(of content: MirrorContent) throws(CloudError) -> ZoneBinding? {
    if let bound = content.zone { return try binding(of: content, zone: bound) }
    do {
      let zone = try self.zone(creatingIfMissing: false)
      return ZoneBinding(zone: zone, zoneFile: zone)
    } catch .noZone {
      return nil
    }
  }

  /// How many segment files each device's folder holds (folders whose name is no device id,
  /// and entries that are not real folders, are left out).
  public func deviceSegmentCounts() throws(CloudError) -> [DeviceID: Int] {
    var counts = [DeviceID: Int]()
    do {
      guard case .names(let devices) = try files.list("devices") else { return [:] }
      for name in devices {
        guard let device = DeviceID(name),
          case .names(let names) = try files.list("devices/" + name)
        else { continue }
        counts[device] = names.filter(Self.isSegmentName).count
      }
    } catch {
      throw .unreachable(root, error.reason)
    }
    return counts
  }
}
