import CloudFolder
import Foundation
import JSONLines
import MirrorStore
import StashModel
import StashTestSupport
import Synchronization
import Testing

/// A first export's cost grows with the versions it sends, never with the segments written
/// before: DESIGN's "costs grow linearly with the store, never quadratically". These tests
/// count the work (mirror transactions, bytes appended to `cloud.store`) instead of timing it.
@Suite struct ExportCostTests {
  /// Versions for `segments` full segments and a short last one.
  static func pendingVersions(in device: TestDevice, segments: Int) throws -> Int {
    let count = segments * CloudLimits.versionsPerSegment + 100
    try device.mirror.update { _, transaction in
      for number in 0..<count {
        let item = Item(name: "Tube \(number)", quantity: 1, createdAt: sharedEpoch)
        transaction.write(
          .record(item.record), parents: [], author: device.device, at: sharedEpoch)
      }
    }
    return count
  }

  /// The mirror file's size and inode.
  static func identity(_ path: String) throws -> (size: Int64, inode: UInt64) {
    let attributes = try FileManager.default.attributesOfItem(atPath: path)
    let size = try #require(attributes[.size] as? NSNumber).int64Value
    let inode = try #require(attributes[.systemFileNumber] as? NSNumber).uint64Value
    return (size, inode)
  }

  @Test func aFirstExportSavesTheMirrorTwicePerSegmentAndNeverRewritesIt() throws {
    try withTemporaryFolder { folder in
      let files = ScriptedFileSystem()
      let setUp = try SharedSetUp(folder, fileSystem: files)
      let count = try Self.pendingVersions(in: setUp.a, segments: 3)
      let mirrorPath = setUp.a.mirror.path
      let before = try Self.identity(mirrorPath)
      let atPublish = LockedBox<[(size: Int64, inode: UInt64)]>([])
      files.beforePublish { destination in
        guard destination.hasSuffix(".jsonl"), let now = try? Self.identity(mirrorPath)
        else { return }
        atPublish.withLock { $0.append(now) }
      }
      let report = try setUp.cloud.export(
        from: setUp.a.mirror, deviceBlobs: setUp.a.blobs, at: sharedEpoch)
      #expect(report.versions == count)
      #expect(report.segments.count == 4)
      let after = try Self.identity(mirrorPath)
      // Never compacted or rewritten: the same file, only appended to.
      #expect(after.inode == before.inode)
      let sizes = atPublish.withLock { $0 }
      #expect(sizes.count == 4)
      #expect(sizes.allSatisfy { $0.inode == before.inode })
      // Two transactions per segment (the export id before publishing, what was exported
      // after): count the commit lines the export appended.
      let bytes = try Data(contentsOf: URL(fileURLWithPath: mirrorPath))
      let appended = String(decoding: bytes.dropFirst(Int(before.size)), as: UTF8.self)
      let commits = appended.split(separator: "\n").filter { $0.contains("\"commit\":") }
      #expect(commits.count == 2 * report.segments.count)
      // What a full segment appends does not grow with the segments written before it:
      // between two publishes the mirror gains one segment's bookkeeping, the same for the
      // second full segment as for the first.
      let first = sizes[1].size - sizes[0].size
      let second = sizes[2].size - sizes[1].size
      #expect(first > 0 && second > 0)
      #expect(Double(second) <= Double(first) * 1.05, "\(first) then \(second) bytes")
      // And it stays proportional to the versions: each is named once (its key and id).
      #expect(first <= Int64(CloudLimits.versionsPerSegment) * 200 + 4096)
    }
  }
}
