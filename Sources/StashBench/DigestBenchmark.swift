import Foundation
import Stash
import StashModel

/// `stash-bench digest DIR`: the digest `sync status` shows, computed in process (best of 5):
/// from the rows alone (no local index, so no digest section), from a fresh section of the
/// index, and from a section 100 edits behind. The folder's own index is put back as it was.
func digestBenchmark(_ arguments: [String]) -> Int32 {
  guard let home = arguments.first else {
    printError("usage: stash-bench digest DIR (a folder made with 'stash-bench store N DIR')")
    return 2
  }
  let path = home + "/default.store.index"
  let aside = home + "/index.bench-aside"
  do {
    let device = try DeviceFolder.open(at: home, options: .init(createIfMissing: false))
    let files = FileManager.default
    let had = files.fileExists(atPath: path)
    if had { try files.copyItem(atPath: path, toPath: aside) }
    defer {
      try? files.removeItem(atPath: path)
      if had { try? files.moveItem(atPath: aside, toPath: path) }
    }
    func best(_ label: String) -> (Double, Int, Bool) {
      var times = [Double]()
      var last = (usedSection: false, rehashed: 0)
      for _ in 0..<5 {
        let start = Date()
        let computed = device.computeDigest()
        times.append(Date().timeIntervalSince(start))
        last = (computed.usedSection, computed.rehashed)
      }
      let time = times.min() ?? 0
      print(
        "\(label): best \(String(format: "%.1f", time * 1000)) ms, \(last.rehashed) buckets "
          + "rehashed, section \(last.usedSection ? "used" : "not used")")
      return (time, last.rehashed, last.usedSection)
    }
    let items = device.items()
    // A save writes the index the section goes in ('stash-bench store' writes none).
    if let first = items.first { try device.restock(first.id.rawValue, count: 1) }
    let index = files.contents(atPath: path)
    try? files.removeItem(atPath: path)
    let rows = best("from the rows")
    if let index { _ = files.createFile(atPath: path, contents: index) }
    device.writeDigestSection()
    let fresh = best("fresh section")
    for index in 0..<min(100, items.count) {
      try device.consume(items[index * max(1, items.count / 100)].id.rawValue)
    }
    let behind = best("section 100 edits behind")
    print(
      "\(items.count) items: fresh section \(String(format: "%.1f", rows.0 / max(fresh.0, 1e-9)))× "
        + "faster than the rows, 100 edits behind \(String(format: "%.1f", rows.0 / max(behind.0, 1e-9)))×"
    )
    return 0
  } catch {
    printError("\(error)")
    return 1
  }
}
