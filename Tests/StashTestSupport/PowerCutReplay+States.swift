public import StashBase
import StashModel

/// One state a power cut could leave: every file under the root with its bytes.
public struct PowerCutState: Sendable, CustomStringConvertible {
  /// How many recorded calls had been made when the power went.
  public let position: Int
  /// Every file by its path relative to the root.
  public let files: [String: [UInt8]]
  /// Which recorded file each path names (two paths may name one file: a hard link).
  public let fileNumbers: [String: Int]
  /// Every folder by its path relative to the root (`""` is the root).
  public let directories: Set<String>
  /// What was kept and what was lost, for a failure message.
  public let summary: String

  public var description: String { summary }

  /// The SHA-256 of the paths and bytes, the same in every run: equal states have equal
  /// fingerprints.
  public var fingerprint: SHA256Digest { fingerprint { _ in true } }

  /// The fingerprint of the files whose paths `including` accepts (and of every folder).
  public func fingerprint(including: (String) -> Bool) -> SHA256Digest {
    var hasher = SHA256()
    for path in files.keys.sorted() where including(path) {
      hasher.update("\(path)\0\(files[path]!.count)\0")
      hasher.update(files[path]!)
    }
    for folder in directories.sorted() { hasher.update("\(folder)/\0") }
    return hasher.finalize()
  }
}

/// How to choose what survives of what is not durable.
public enum PowerCutChoice: Sendable {
  /// Every page and name at random.
  case random
  /// Everything written survives (what a process kill leaves).
  case allKept
  /// Nothing that was not made durable survives.
  case allDropped
}

extension PowerCutReplay {
  /// One state a power cut at the current position could leave.
  ///
  /// - Parameters:
  ///   - choice: Whether to choose at random, or keep or drop everything not durable.
  ///   - random: The seeded generator the random choices come from.
  /// - Returns: The state.
  public func sample(
    _ choice: PowerCutChoice = .random, using random: inout SeededRandom
  ) -> PowerCutState {
    var names = durableNames
    let keptNames: Int
    switch choice {
    case .allKept: keptNames = pendingNames.count
    case .allDropped: keptNames = 0
    case .random: keptNames = Int.random(in: 0...pendingNames.count, using: &random)
    }
    for pending in pendingNames.prefix(keptNames) { Self.applyName(pending.event, to: &names) }
    var notes: [String] = []
    if !pendingNames.isEmpty {
      notes.append("\(keptNames) of \(pendingNames.count) unsynchronized name changes kept")
    }
    var contents: [String: [UInt8]] = [:]
    var chosen: [Int: [UInt8]] = [:]
    for (path, number) in names.sorted(by: { $0.key < $1.key }) {
      guard let file = files[number] else { continue }
      if let bytes = chosen[number] {
        contents[path] = bytes
        continue
      }
      let (bytes, note) = Self.bytes(of: file, choice, using: &random)
      if let note { notes.append("'\(path)': \(note)") }
      chosen[number] = bytes
      contents[path] = bytes
    }
    let last = lastEvent.map { " (\($0))" } ?? ""
    return PowerCutState(
      position: position, files: contents, fileNumbers: names, directories: directories,
      summary: "a power cut after call \(position)\(last): "
        + (notes.isEmpty ? "everything was durable" : notes.joined(separator: "; ")))
  }

  /// The bytes a file may hold after the power cut, and what was chosen (`nil` when all of
  /// it was durable).
  private static func bytes(
    of file: File, _ choice: PowerCutChoice, using random: inout SeededRandom
  ) -> ([UInt8], String?) {
    guard !file.pending.isEmpty else { return (file.durable, nil) }
    switch choice {
    case .allKept: return (file.current, "everything written kept")
    case .allDropped: return (file.durable, "everything unsynchronized lost")
    case .random: break
    }
    // The size after each pending call, and the pages each one touched.
    var sizes = [file.durable.count]
    var touching: [Int: [Int]] = [:]  // page -> the calls (1-based) that touched it
    for (index, event) in file.pending.enumerated() {
      let before = sizes.last!
      let range: Range<Int>
      switch event {
      case .write(_, let offset, let bytes):
        range = Int(offset)..<(Int(offset) + bytes.count)
        sizes.append(max(before, range.upperBound))
      case .truncate(_, let size):
        range = min(before, Int(size))..<max(before, Int(size))
        sizes.append(Int(size))
      default:
        continue
      }
      guard !range.isEmpty else { continue }
      for page in (range.lowerBound / pageSize)...((range.upperBound - 1) / pageSize) {
        touching[page, default: []].append(index + 1)
      }
    }
    let sizeChoice = Int.random(in: 0..<sizes.count, using: &random)
    let size = sizes[sizeChoice]
    var bytes = [UInt8](repeating: 0, count: size)
    let durableCount = min(size, file.durable.count)
    bytes.replaceSubrange(0..<durableCount, with: file.durable[0..<durableCount])
    var kept = 0
    var older = 0
    for page in touching.keys.sorted() {
      let versions = touching[page]!
      let version = ([0] + versions).randomElement(using: &random)!
      if version == versions.last! { kept += 1 } else if version > 0 { older += 1 }
      guard version > 0 else { continue }
      let start = page * pageSize
      var content = [UInt8](repeating: 0, count: pageSize)
      if start < file.durable.count {
        let end = min(file.durable.count, start + pageSize)
        content.replaceSubrange(0..<(end - start), with: file.durable[start..<end])
      }
      for event in file.pending.prefix(version) {
        switch event {
        case .write(_, let offset, let written):
          let low = max(start, Int(offset))
          let high = min(start + pageSize, Int(offset) + written.count)
          guard low < high else { continue }
          let from = low - Int(offset)
          content.replaceSubrange(
            (low - start)..<(high - start), with: written[from..<(from + high - low)])
        case .truncate(_, let cut):
          for index in max(0, Int(cut) - start)..<pageSize { content[index] = 0 }
        default:
          continue
        }
      }
      let end = min(size, start + pageSize)
      if start < end { bytes.replaceSubrange(start..<end, with: content[0..<(end - start)]) }
    }
    let dropped = touching.count - kept - older
    return (
      bytes,
      "size \(size) (durable \(file.durable.count), written \(file.current.count)), of "
        + "\(touching.count) pages written since the last fsync \(kept) kept, \(dropped) lost"
        + (older > 0 ? ", \(older) as of an earlier write" : "")
    )
  }
}

extension PowerCutReplay {
  /// Replays the calls up to `end` and returns up to `count` distinct states that a power cut
  /// at any moment from the current position to `end` could leave, in call order.
  ///
  /// At each moment where something is not durable, the state that keeps everything (a
  /// process kill), the one that keeps nothing, and random ones are drawn (`count × 3` draws
  /// in all, at random moments); `count` of the distinct ones are kept, at random.
  ///
  /// - Parameters:
  ///   - end: The last moment (a number of calls done).
  ///   - count: How many distinct states at most.
  ///   - random: The seeded generator every choice comes from.
  /// - Returns: The states, by position.
  public mutating func states(
    through end: Int, count: Int, using random: inout SeededRandom
  ) -> [PowerCutState] {
    let moments = Array(position...end)
    var draws: [Int: Int] = [:]
    for _ in 0..<(count * 3) { draws[moments.randomElement(using: &random)!, default: 0] += 1 }
    var found: [SHA256Digest: PowerCutState] = [:]
    for moment in moments {
      advance(to: moment)
      var candidates = [sample(.allDropped, using: &random)]
      if hasPending {
        candidates.append(sample(.allKept, using: &random))
        for _ in 0..<draws[moment, default: 0] { candidates.append(sample(using: &random)) }
      }
      for state in candidates {
        let fingerprint = state.fingerprint
        if found[fingerprint] == nil { found[fingerprint] = state }
      }
    }
    let chosen = found.keys.sorted().shuffled(using: &random).prefix(count)
    return chosen.map { found[$0]! }.sorted { $0.position < $1.position }
  }
}
