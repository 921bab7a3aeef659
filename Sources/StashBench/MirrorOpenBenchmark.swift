import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashModel

/// `stash-bench mirror-open DIR`: opening the mirror of a device folder (made with
/// `stash-bench store N DIR --synced`) whole, with and without writing its index, and focused
/// on one record and on ten through `cloud.store.index`.
func mirrorOpenBenchmark(_ arguments: [String]) -> Int32 {
  guard let home = arguments.first else {
    printError("usage: stash-bench mirror-open DIR (made with 'stash-bench store N DIR --synced')")
    return 2
  }
  let indexPath = home + "/" + MirrorStore.fileName + ".index"
  func open(_ focus: Set<RecordKey>?) throws -> (MirrorStore, Double) {
    let start = Date()
    let mirror = try MirrorStore.open(
      folder: home, schemas: InventorySchemas.registry, lock: FolderLock(folder: home),
      access: .reading, focus: focus)
    return (mirror, Date().timeIntervalSince(start))
  }
  do {
    _ = try open(nil)  // warm up (and write the index if it is missing)
    try? FileManager.default.removeItem(atPath: indexPath)
    let (whole, writing) = try open(nil)
    let keys = whole.content.versions.keys.sorted()
    guard !keys.isEmpty else {
      printError("'\(home)' has an empty mirror; make it with --synced")
      return 1
    }
    let size = (try? FileManager.default.attributesOfItem(atPath: indexPath)[.size] as? Int) ?? 0
    var plain = [Double]()
    for _ in 0..<3 { plain.append(try open(nil).1) }
    var writes = [Double]()
    for _ in 0..<3 {
      try? FileManager.default.removeItem(atPath: indexPath)
      let start = Date()
      whole.maintainIndex()
      writes.append(Date().timeIntervalSince(start))
    }
    print(
      "mirror of \(whole.content.versionCount) versions, whole open: best "
        + "\(milliseconds(plain.min()!)) ms (\(milliseconds(writing)) ms for the one that wrote "
        + "the \(size >> 10) KiB index); writing the index alone: best "
        + "\(milliseconds(writes.min()!)) ms")
    for count in [1, 10] {
      let focus = Set((0..<count).map { keys[($0 * 7919 + keys.count / 2) % keys.count] })
      var times = [Double]()
      var use = MirrorStore.IndexUse.notAsked
      for _ in 0..<5 {
        let (mirror, seconds) = try open(focus)
        times.append(seconds)
        use = mirror.indexUse
      }
      print(
        "  focused on \(count) record(s): best \(milliseconds(times.min()!)) ms, median "
          + "\(milliseconds(median(times))) ms (\(use))")
    }
    return 0
  } catch {
    printError("stash-bench mirror-open: \(error)")
    return 1
  }
}
