import Foundation
import JSONLines
import Stash
import StashFiles
import StashModel
import StashTestSupport

let epoch = Timestamp(secondsSince1970: 1_764_441_600)!

/// Opens a device folder with a fixed clock and name.
func openDevice(
  _ folder: URL, create: Bool = true, fileSystem: any FileSystem = POSIXFileSystem()
) throws -> DeviceFolder {
  try DeviceFolder.open(
    at: folder.path,
    options: .init(
      createIfMissing: create, deviceName: "test-device", clock: { epoch },
      fileSystem: fileSystem))
}

func fileSize(_ path: String) throws -> Int {
  (try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
}

func write(_ text: String, to path: String) throws {
  try Data(text.utf8).write(to: URL(fileURLWithPath: path))
}
