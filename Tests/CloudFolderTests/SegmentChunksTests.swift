import Foundation
import MirrorStore
import StashModel
import StashTestSupport
import Testing

@testable import CloudFolder

/// An export cuts the pending versions into segments and encodes their lines as it reaches
/// each segment: an export of the whole store holds at most a segment's worth of lines ahead
/// of the segment it writes (it used to encode every pending version's line first).
@Suite struct SegmentChunksTests {
  @Test func chunksAreFullSegmentsInOrderEncodedASegmentAhead() throws {
    try withTemporaryFolder { folder in
      let setUp = try SharedSetUp(folder)
      let count = try ExportCostTests.pendingVersions(in: setUp.a, segments: 3)
      let pending = setUp.a.mirror.content.pendingVersions
      #expect(pending.count == count)
      var chunks = SegmentChunks(of: pending)
      var sizes = [Int]()
      var handedOut = 0
      while let (versions, lines) = chunks.next() {
        sizes.append(versions.count)
        #expect(versions.map(\.ref) == pending[handedOut..<(handedOut + versions.count)].map(\.ref))
        #expect(lines == versions.map(Segment.line(of:)))
        #expect(chunks.linesAhead < CloudLimits.versionsPerSegment)
        handedOut += versions.count
        #expect(chunks.isFinished == (handedOut == count))
      }
      let full = CloudLimits.versionsPerSegment
      #expect(sizes == [full, full, full, 100])
      #expect(chunks.next().map(\.0.count) == nil)
    }
  }
}
