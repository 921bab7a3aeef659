/// Finds the known name closest to a mistyped one, for "did you mean" hints.
enum Suggestion {
  /// The candidate closest to `typed` by edit distance, when it is close enough to help.
  ///
  /// A candidate is close when at most a third of its letters (leading dashes aside; at least
  /// one, at most three) need changing, or when `typed` is a prefix of it with at least three
  /// letters. Ties go to the earlier candidate.
  ///
  /// - Parameters:
  ///   - typed: What the user wrote, such as `"--quantty"`.
  ///   - candidates: The known names, written the same way (`"--quantity"`).
  /// - Returns: The closest candidate, or `nil` when none is close.
  static func closest(to typed: String, in candidates: [String]) -> String? {
    let typedCount = typed.count
    let typedLetters = typed.drop { $0 == "-" }.count
    var best: (name: String, distance: Int)?
    for candidate in candidates where candidate != typed {
      let letters = candidate.drop { $0 == "-" }.count
      let limit = min(3, max(1, letters / 3))
      let isPrefix = typedLetters >= 3 && candidate.hasPrefix(typed)
      // The distance is at least the difference in length: a token far longer than every
      // name (a pasted paragraph) is never compared letter by letter.
      guard isPrefix || abs(typedCount - candidate.count) <= limit else { continue }
      let distance = editDistance(typed, candidate)
      guard distance <= limit || isPrefix else { continue }
      if best == nil || distance < best!.distance { best = (candidate, distance) }
    }
    return best?.name
  }

  /// The number of single-character edits from `a` to `b`, counting a swap of neighbours as one.
  ///
  /// This is the optimal string alignment distance: insertions, deletions, substitutions and
  /// transpositions of adjacent characters (`lsit` is one edit from `list`).
  ///
  /// - Parameters:
  ///   - a: The first string.
  ///   - b: The second string.
  /// - Returns: The distance between them.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var beforePrevious = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
      current[0] = i
      for j in 1...b.count {
        let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
        current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
          current[j] = min(current[j], beforePrevious[j - 2] + 1)
        }
      }
      (beforePrevious, previous, current) = (previous, current, beforePrevious)
    }
    return previous[b.count]
  }
}
