/// A model's entries in a digest section, in the byte order of their ids: its bucket groups
/// (each in that order) merged through a heap of the groups' next entries.
struct MergedGroups {
  let bytes: [UInt8]
  /// Where each group's next entry starts, and where the group ends.
  private var cursors: [Int]
  private let ends: [Int]
  /// The groups with entries left, the one whose next id sorts first on top.
  private var heap = [Int]()

  init(bytes: [UInt8], groups: [Range<Int>]) {
    self.bytes = bytes
    cursors = groups.map(\.lowerBound)
    ends = groups.map(\.upperBound)
    heap.reserveCapacity(groups.count)
    for group in groups.indices where !groups[group].isEmpty {
      heap.append(group)
      siftUp(heap.count - 1)
    }
  }

  /// Where the entry whose id sorts first among those left starts; `nil` when none is left.
  var current: Int? { heap.first.map { cursors[$0] } }

  /// Moves past the current entry.
  mutating func advance() {
    let group = heap[0]
    cursors[group] += 35 + Int(bytes[cursors[group] + 1])
    if cursors[group] == ends[group] {
      let last = heap.removeLast()
      guard !heap.isEmpty else { return }
      heap[0] = last
    }
    siftDown(0)
  }

  /// Whether group `a`'s next id sorts before group `b`'s.
  private func precedes(_ a: Int, _ b: Int) -> Bool {
    let x = cursors[a]
    let y = cursors[b]
    let xCount = Int(bytes[x + 1])
    let yCount = Int(bytes[y + 1])
    var index = 0
    while index < min(xCount, yCount) {
      let p = bytes[x + 2 + index]
      let q = bytes[y + 2 + index]
      if p != q { return p < q }
      index += 1
    }
    return xCount < yCount
  }

  private mutating func siftUp(_ start: Int) {
    var child = start
    while child > 0 {
      let parent = (child - 1) / 2
      guard precedes(heap[child], heap[parent]) else { return }
      heap.swapAt(child, parent)
      child = parent
    }
  }

  private mutating func siftDown(_ start: Int) {
    var parent = start
    while true {
      var first = parent
      let left = 2 * parent + 1
      if left < heap.count && precedes(heap[left], heap[first]) { first = left }
      if left + 1 < heap.count && precedes(heap[left + 1], heap[first]) { first = left + 1 }
      guard first != parent else { return }
      heap.swapAt(parent, first)
      parent = first
    }
  }
}
