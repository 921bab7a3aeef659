import StashFiles

extension SyncSeal {
  /// Whether the shared folder is as the seal recorded it or has only gained files since:
  /// every entry the seal recorded (the zone file, each device folder's files, each photo) is
  /// there unchanged, and the only news is new files (segments and photos other devices
  /// published) and the folders holding them. For an encrypted folder, its `keys/` must name
  /// no key the device folder `home` lacks, as for ``sharedFolderMatches(home:fileSystem:)``.
  ///
  /// Then everything a clean sync checked in the folder still holds (this device's segments
  /// and photos are where it left them), and an import reads exactly the new files: a sync of
  /// sealed changes imports them (``SealedChanges``). A file removed, replaced, grown or cut
  /// short, or a changed zone, is not a gain: the full sync runs.
  func sharedFolderOnlyGained(home: String, fileSystem: any FileSystem) -> Bool {
    guard !SyncFolder.namesUnheldKey(home: home, cloud: cloud, fileSystem: fileSystem),
      let now = Self.sharedLines(cloud: cloud, fileSystem: fileSystem)
    else { return false }
    if now == sharedLines { return true }
    let current = Self.entries(now)
    return Self.entries(sharedLines).allSatisfy { current[$0.key] == $0.value }
  }

  /// The shared folder's lines by what they name: a device folder's and the photo folder's by
  /// their kind only (adding a file changes a folder's size and times), every other line
  /// whole.
  private static func entries(_ lines: [String]) -> [String: String] {
    var entries = [String: String]()
    var folder = ""
    for line in lines {
      let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
      guard fields.count == 3 else {
        entries[line] = line
        continue
      }
      switch fields[0] {
      case "device":
        folder = fields[1]
        entries["device " + folder] = String(fields[2].prefix { $0 != " " })
      case "file": entries["file " + folder + "/" + fields[1]] = fields[2]
      case "blobs": entries["blobs"] = fields[1]
      default: entries[fields[0] + " " + fields[1]] = fields[2]
      }
    }
    return entries
  }
}
