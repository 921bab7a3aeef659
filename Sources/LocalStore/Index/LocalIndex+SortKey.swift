import Foundation

extension LocalIndex {
  /// A table key as the writer sorts it: the same order as ``LocalIndex/precedes(_:_:)-(_,_)``,
  /// decided in most comparisons by two integers.
  ///
  /// `rank` is the model's place among the index's models in byte order; `head` is the key's
  /// first eight bytes, big-endian and zero-padded. Where two heads differ they order the
  /// keys bytewise (a zero of padding sorts below any byte, as a shorter key does); only
  /// keys with the same rank and head compare their bytes.
  struct SortKey {
    let rank: Int
    let head: UInt64
    let key: UnsafeRawBufferPointer

    init(rank: Int, key: UnsafeRawBufferPointer) {
      var head: UInt64 = 0
      for index in 0..<8 {
        head <<= 8
        if index < key.count { head |= UInt64(key[index]) }
      }
      self.rank = rank
      self.head = head
      self.key = key
    }

    static func < (a: SortKey, b: SortKey) -> Bool {
      if a.rank != b.rank { return a.rank < b.rank }
      if a.head != b.head { return a.head < b.head }
      return LocalIndex.compareBytes(a.key, b.key) < 0
    }
  }

  /// The models of an index's entries, each with its rank in byte order.
  struct ModelRanks {
    private var models: [UnsafeRawBufferPointer] = []

    init(_ all: some Sequence<UnsafeRawBufferPointer>) {
      var last: UnsafeRawBufferPointer?
      for model in all {
        if let last, LocalIndex.compareBytes(last, model) == 0 { continue }
        if !models.contains(where: { LocalIndex.compareBytes($0, model) == 0 }) {
          models.append(model)
        }
        last = model
      }
      models.sort { LocalIndex.compareBytes($0, $1) < 0 }
    }

    /// The rank of `model`, which must be one of those the ranks were made from.
    func rank(of model: UnsafeRawBufferPointer) -> Int {
      models.firstIndex { LocalIndex.compareBytes($0, model) == 0 } ?? models.count
    }
  }
}
