// The parser's scratch stacks: children of the open containers are pushed here and moved (not
// copied) into an exactly sized array when their container closes.

/// A growable stack of elements in manually managed memory.
///
/// Unlike `Array`, it can move a run of elements out without retaining and releasing each one.
struct ScratchStack<Element>: ~Copyable {
  private var base: UnsafeMutablePointer<Element>?
  private(set) var count = 0
  private var capacity = 0
  /// Whether `base` was allocated here (else it was lent by the creator, who frees it).
  private var ownsStorage = false

  /// Creates an empty stack that starts in memory lent by the caller and moves to the heap
  /// when it outgrows it. The stack must be destroyed before the lent memory is.
  init(startingIn storage: UnsafeMutableBufferPointer<Element>) {
    base = storage.baseAddress
    capacity = storage.count
  }

  deinit {
    if let base {
      base.deinitialize(count: count)
      if ownsStorage {
        base.deallocate()
      }
    }
  }

  @inline(__always)
  mutating func push(_ element: consuming Element) {
    if count == capacity {
      grow()
    }
    (base.unsafelyUnwrapped + count).initialize(to: element)
    count += 1
  }

  /// Removes and returns the top element.
  @inline(__always)
  mutating func pop() -> Element {
    count -= 1
    return (base.unsafelyUnwrapped + count).move()
  }

  /// The top element; the stack must not be empty.
  @inline(__always)
  var top: Element {
    base.unsafelyUnwrapped[count - 1]
  }

  /// The top element, for changing it in place; the stack must not be empty.
  @inline(__always)
  var topPointer: UnsafeMutablePointer<Element> {
    base.unsafelyUnwrapped + (count - 1)
  }

  /// Moves the elements from `start` to the top into a new array, leaving `start` elements.
  @inline(__always)
  mutating func popArray(from start: Int) -> [Element] {
    let length = count - start
    guard length > 0 else { return [] }
    let source = base.unsafelyUnwrapped + start
    count = start
    // `reserveCapacity` and `append` are specialized for `Element`; the standard library's
    // `init(unsafeUninitializedCapacity:)` looks up the storage class's metadata every call.
    var result: [Element] = []
    result.reserveCapacity(length)
    for offset in 0..<length {
      result.append((source + offset).move())
    }
    return result
  }

  private mutating func grow() {
    let newCapacity = Swift.max(16, capacity * 2)
    let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
    if let base {
      newBase.moveInitialize(from: base, count: count)
      if ownsStorage {
        base.deallocate()
      }
    }
    base = newBase
    capacity = newCapacity
    ownsStorage = true
  }
}
