import Foundation
import Stash
import StashModel

/// `stash-bench digest DIR`: the digest `sync status` shows, computed in process (best of 5):
/// from the rows alone (no `default.store.digest`), from a fresh file, and from a file 100
/// edits behind. The folder's own digest file is left as it was.
func digestBenchmark(_ arguments: [String]) -> Int32 {
  guard let home = arguments.first else {
    printError("usage: stash-bench digest DIR (a folder made with 'stash-bench store N DIR')")
    return 2
  }
  let path = home + "/" + InventoryDigest.fileName
  let aside = home + "/digest.bench-aside"
  do {
    let device = try DeviceFolder.open(at: home, options: .init(createIfMissing: false))
    let files = FileManager.default
    let had = files.fileExists(atPath: path)
    if had { try files.moveItem(atPath: path, toPath: aside) }
    defer {
      try? files.removeItem(atPath: path)
      if had { try? files.moveItem(atPath: aside, toPath: path) }
    }
    func best(_ label: String) -> (Double, Int, Bool) {
      var times = [Double]()
      var last = (usedFile: false, rehashed: 0)
      for _ in 0..<5 {
        let start = Date()
        let computed = device.computeDigest()
        times.append(Date().timeIntervalSince(start))
        last = (computed.usedFile, computed.rehashed)
      }
      let time = times.min() ?? 0
      print(
        "\(label): best \(String(format: "%.1f", time * 1000)) ms, \(last.rehashed) buckets "
          + "rehashed, file \(last.usedFile ? "used" : "not used")")
      return (time, last.rehashed, last.usedFile)
    }
    let rows = best("from the rows")
    device.writeDigestFile()
    let fresh = best("fresh file")
    let items = device.items()
    for index in 0..<min(100, items.count) {
      try device.consume(items[index * max(1, items.count / 100)].id.rawValue)
    }
    let behind = best("file 100 edits behind")
    print(
      "\(items.count) items: fresh file \(String(format: "%.1f", rows.0 / max(fresh.0, 1e-9)))× "
        + "faster than the rows, 100 edits behind \(String(format: "%.1f", rows.0 / max(behind.0, 1e-9)))×"
    )
    return 0
  } catch {
    printError("\(error)")
    return 1
  }
}
