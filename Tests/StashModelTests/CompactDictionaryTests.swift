import StashBase
import StashTestSupport
import Testing

/// `CompactDictionary` holds the per-record tables of both stores (issue 26, items 4 and 5: at
/// 100,000 records a `Dictionary` keeps 262,144 buckets as wide as a key and a value). It must
/// answer exactly as a dictionary does, whatever the keys' hashes, and take a slot an entry.
@Suite struct CompactDictionaryTests {
  /// A key whose hash is chosen: few distinct hashes make long probe runs, which wrap around
  /// the end of the buckets and are cut by removals (the cases linear probing gets wrong).
  struct Key: Hashable, Comparable {
    let number: Int
    let spread: Int

    func hash(into hasher: inout Hasher) { hasher.combine(number % spread) }

    static func < (lhs: Key, rhs: Key) -> Bool { lhs.number < rhs.number }
  }

  /// Random histories of adds, replacements, removals (of present and absent keys) and
  /// modifications in place, against a dictionary, from hashes all alike to all distinct.
  @Test(arguments: [1, 3, 17, 1_000_000])
  func answersAsADictionary(spread: Int) {
    var random = SeededRandom(seed: UInt64(spread))
    var table = CompactDictionary<Key, Int>()
    var reference = [Key: Int]()
    let range = spread == 1 ? 300 : 3_000
    for step in 0..<(spread == 1 ? 4_000 : 40_000) {
      let key = Key(number: Int.random(in: 0..<range, using: &random), spread: spread)
      switch Int.random(in: 0..<100, using: &random) {
      case 0..<45:
        #expect(table.updateValue(step, forKey: key) == reference.updateValue(step, forKey: key))
      case 45..<80:
        #expect(table.removeValue(forKey: key) == reference.removeValue(forKey: key))
      case 80..<90:
        table[key, default: 0] += step
        reference[key, default: 0] += step
      case 90..<93:
        table[key]? += step
        reference[key]? += step
      case 93..<95:
        let value = Bool.random(using: &random) ? step : nil
        table[key] = value
        reference[key] = value
      default:
        if Int.random(in: 0..<50, using: &random) == 0 {
          table.removeAll(keepingCapacity: Bool.random(using: &random))
          reference.removeAll()
        }
      }
      #expect(table[key] == reference[key])
      #expect(table.count == reference.count)
    }
    // Every key, present or not, answers as the dictionary's.
    for number in 0..<range {
      let key = Key(number: number, spread: spread)
      #expect(table[key] == reference[key])
    }
    #expect(
      table.sorted { $0.key < $1.key }.map(\.value)
        == reference.sorted { $0.key < $1.key }.map(\.value))
    #expect(Set(table.keys) == Set(reference.keys))
    #expect(table.values.sorted() == reference.values.sorted())
  }

  /// Equality ignores the order entries were added in, as a dictionary's does.
  @Test func equalityIgnoresOrder() {
    var forward = CompactDictionary<Int, String>()
    var backward = CompactDictionary<Int, String>()
    for number in 0..<100 { forward[number] = "\(number)" }
    for number in (0..<100).reversed() { backward[number] = "\(number)" }
    #expect(forward == backward)
    backward[42] = "other"
    #expect(forward != backward)
    backward[42] = nil
    #expect(forward != backward)
    let literal: CompactDictionary<Int, String> = [1: "a", 2: "b"]
    #expect(literal.count == 2 && literal[1] == "a" && literal[3] == nil)
  }

  /// A value is modified where it is (through `[key]?` and `[key, default:]`), not copied:
  /// a version graph modified as a copy would copy every one of its versions.
  @Test func valuesAreModifiedInPlace() {
    var table = CompactDictionary<Int, [Int]>()
    for number in 0..<50 { table[number] = [number] }
    var held = [Int]()
    held.reserveCapacity(16)
    held.append(7)
    table[7] = held
    held = []
    func address() -> UnsafeRawPointer? {
      table[7]?.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }
    let before = address()
    table[7]?.append(8)
    table[7, default: []].append(9)
    #expect(address() == before)
    #expect(table[7] == [7, 8, 9])
    table[7]?.removeAll()
    #expect(table[7] == [])
    table[99]?.append(1)
    #expect(table[99] == nil && table.count == 50)
  }

  /// Grown one entry at a time, the buckets are the fewest power of two at least twice the
  /// entries (not twice the array's room, which malloc rounds up past a power of two for an
  /// entry of 40 bytes, a local store's key and its rows).
  @Test func bucketsFollowTheEntries() {
    var table = CompactDictionary<Int, (Int, Int, Int, Int)>()
    for number in 0..<100_000 {
      table[number] = (number, 0, 0, 0)
      let count = number + 1
      if count.isMultiple(of: 1_000) {
        #expect(table.bucketCount >= 2 * count && table.bucketCount < 4 * count, "\(count)")
      }
    }
    #expect(table.bucketCount == 262_144)
  }

  /// Reserved room holds every entry without growing: the entries take exactly the room
  /// reserved, and the buckets twice that rounded up to a power of two.
  @Test func reservedRoomIsExact() {
    var table = CompactDictionary<Int, Int>(minimumCapacity: 100_000)
    let entries = table.entryCapacity
    for number in 0..<100_000 { table[number] = number }
    #expect(table.entryCapacity == entries)
    #expect(entries < 100_000 + 1_024, "as an array reserves: not a power of two")
    #expect(table.bucketCount == 262_144)
    #expect((0..<100_000).allSatisfy { table[$0] == $0 })
  }

  /// Counts how often keys are hashed.
  final class HashCount {
    var count = 0
  }

  /// A key that counts its hashing.
  struct CountedKey: Hashable {
    let number: Int
    let hashes: HashCount

    func hash(into hasher: inout Hasher) {
      hashes.count += 1
      hasher.combine(number)
    }

    static func == (lhs: CountedKey, rhs: CountedKey) -> Bool { lhs.number == rhs.number }
  }

  /// An empty table answers a lookup or a removal without hashing the key (issue 26, item 5:
  /// a first sync asks the empty mirror's and checkpoints' tables about each of its records,
  /// and each question hashed the key).
  @Test func anEmptyTableAnswersWithoutHashing() {
    let hashes = HashCount()
    let key = CountedKey(number: 7, hashes: hashes)
    var table = CompactDictionary<CountedKey, Int>()
    func ask() {
      #expect(table[key] == nil)
      #expect(table.position(of: key) == nil)
      #expect(!table.keys.contains(key))
      #expect(table.removeValue(forKey: key) == nil)
      table[key] = nil
    }
    ask()
    #expect(hashes.count == 0, "a new table")
    table[key] = 1
    table.removeAll()
    ask()
    #expect(hashes.count == 1, "a table emptied: only the insertion hashed the key")
    table[CountedKey(number: 8, hashes: hashes)] = 2
    #expect(table[key] == nil && table[CountedKey(number: 8, hashes: hashes)] == 2)
    #expect(hashes.count > 2, "a table with an entry hashes to find it")
  }
}

/// `CompactSet` holds a mirror's pending versions: it must answer as a `Set` does, and give its
/// members by position without a copy.
@Suite struct CompactSetTests {
  @Test(arguments: [1, 17, 1_000_000])
  func answersAsASet(spread: Int) {
    var random = SeededRandom(seed: UInt64(spread) + 7)
    var set = CompactSet<CompactDictionaryTests.Key>()
    var reference = Set<CompactDictionaryTests.Key>()
    for _ in 0..<20_000 {
      let key = CompactDictionaryTests.Key(
        number: Int.random(in: 0..<(spread == 1 ? 200 : 2_000), using: &random), spread: spread)
      switch Int.random(in: 0..<100, using: &random) {
      case 0..<50: #expect(set.insert(key) == reference.insert(key).inserted)
      case 50..<90: #expect(set.remove(key) == (reference.remove(key) != nil))
      case 90..<99:
        let others = (0..<5).map { CompactDictionaryTests.Key(number: $0 * 13, spread: spread) }
        set.subtract(others)
        reference.subtract(others)
      default:
        #expect(CompactSet(Array(set)) == set)
      }
      #expect(set.contains(key) == reference.contains(key))
      #expect(set.count == reference.count)
    }
    #expect(Set(set) == reference)
    #expect(Set(set.indices.map { set[$0] }) == reference, "by position")
    let literal: CompactSet = [3, 1, 3]
    #expect(literal.count == 2 && literal.contains(1) && !literal.contains(2))
  }
}
