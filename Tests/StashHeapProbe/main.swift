// StashHeapProbe: how many bytes of heap a store's in-memory content keeps per record,
// measured in a process of its own so that nothing else allocates meanwhile (test-only; not
// part of a product).
//
//     StashHeapProbe mirror N
//
// `mirror`: N records of one version each (what a whole mirror holds after a first sync or a
// second device's import), added to an empty `MirrorContent` as a replay of its file adds
// them. The versions are made first; what is measured is what the content keeps beside them.
// Prints `bytes-per-record B` (the resident memory after, less before, over N), or
// `unsupported` where the platform does not say (only Linux does here).

import Foundation
import JSONLines
import MirrorStore
import StashModel

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The bytes of memory this process has resident (Linux's `/proc/self/statm`), or `nil` where
/// the platform does not say. In a process of its own that allocates nothing else, what grows
/// is what the measured structure keeps (glibc's `mallinfo2` would say it more exactly, but
/// Swift's Glibc module does not declare it).
func heapInUse() -> Int? {
  #if os(Linux)
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else {
      return nil
    }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
  #else
    return nil
  #endif
}

let arguments = CommandLine.arguments
guard arguments.count == 3, arguments[1] == "mirror", let count = Int(arguments[2]), count > 0
else {
  print("usage: StashHeapProbe mirror N")
  exit(2)
}
guard heapInUse() != nil else {
  print("unsupported")
  exit(0)
}

let epoch = Timestamp(secondsSince1970: 1_764_441_600)!
let device = DeviceID("00000000-0000-4000-8000-00000000a11c")!
let versions = (0..<count).map { index in
  let item = Item(
    id: RecordID.make(), name: "Tube \(index)", quantity: Int64(index % 9),
    createdAt: epoch)
  return MirrorVersion(
    snapshot: .record(item.record), parents: [], generation: 1, author: device,
    authoredAt: epoch)
}
var content = MirrorContent(
  header: LogHeader(
    format: MirrorContent.format, version: MirrorContent.version, storeID: StoreID.make(),
    deviceID: device, created: epoch),
  context: MirrorContent.Context(schemas: InventorySchemas.registry))
let before = heapInUse()!
var offset: Int64 = 0
for (line, version) in versions.enumerated() {
  content.apply(
    .addVersion(version, pending: false), at: LineSpan(offset: offset, length: 400, line: line))
  offset += 400
}
let after = heapInUse()!
precondition(content.versionCount == count)
print("bytes-per-record \((after - before) / count)")
