import MirrorStore
import StashBase

/// Pending versions cut into what one segment holds (below ``CloudLimits/segmentBytes``, at
/// most ``CloudLimits/versionsPerSegment`` versions), each with its versions' encoded lines,
/// one segment at a time.
///
/// Lines are encoded (on every core) a segment's worth at a time, as the export reaches them:
/// an export of the whole store holds one or two segments' lines, never all of them.
struct SegmentChunks {
  private let versions: PendingVersions
  /// The first version not handed out in a chunk yet.
  private var start = 0
  /// The versions from `start` on whose lines are encoded (a window ahead of the chunks, each
  /// read once from the mirror), and their lines.
  private var window: ArraySlice<MirrorVersion> = []
  private var lines: ArraySlice<[UInt8]> = []

  /// The chunks of `versions`, in order.
  init(of versions: PendingVersions) { self.versions = versions }

  /// How many versions' lines are encoded and not handed out yet.
  var linesAhead: Int { lines.count }

  /// Whether every version was handed out (after a chunk: it was the last).
  var isFinished: Bool { start == versions.count }

  /// The next chunk and its lines, or `nil` when every version was handed out.
  mutating func next() -> ([MirrorVersion], [[UInt8]])? {
    guard !isFinished else { return nil }
    let budget = Int(CloudLimits.segmentBytes) - 1024
    var chunk = [[UInt8]]()
    var chunkVersions = [MirrorVersion]()
    var size = 0
    while start + chunk.count < versions.count, chunk.count < CloudLimits.versionsPerSegment {
      if lines.isEmpty { encodeWindow(from: start + chunk.count) }
      let line = lines.first!
      if !chunk.isEmpty, size + line.count + 1 > budget { break }
      chunk.append(line)
      chunkVersions.append(window.first!)
      lines.removeFirst()
      window.removeFirst()
      size += line.count + 1
    }
    start += chunk.count
    return (chunkVersions, chunk)
  }

  /// Reads up to a segment's count of versions from `first` on, and encodes their lines.
  private mutating func encodeWindow(from first: Int) {
    let end = min(versions.count, first + CloudLimits.versionsPerSegment)
    let read = Array(versions[first..<end])
    window = read[...]
    lines = ArraySlice(Parallel.map(count: read.count) { Segment.line(of: read[$0]) })
  }
}
