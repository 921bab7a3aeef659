import StashBase
import StashTestSupport
import Testing

/// `UnsafeScalars.areIn` reads text's UTF-8 bytes, decoding no scalar: it must answer what
/// checking every scalar answers (a miss would let the `stash` tool print a control
/// unescaped; a false alarm only costs the slow path).
@Suite struct UnsafeScalarsTests {
  @Test func everyScalarAloneAndAmidTextIsJudgedByItsBytesAsByItsValue() {
    var unsafe = 0
    for value in UInt32(0)...0x10FFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let isUnsafe = UnsafeScalars.contains(scalar)
      if isUnsafe { unsafe += 1 }
      let alone = String(Character(scalar))
      guard UnsafeScalars.areIn(alone) == isUnsafe else {
        Issue.record("U+\(String(value, radix: 16)): \(isUnsafe ? "missed" : "flagged")")
        continue
      }
      guard isUnsafe || value % 97 == 0 else { continue }  // amid text: the unsafe, and a sample
      #expect(UnsafeScalars.areIn("Crème 🧴 " + alone + " brûlée") == isUnsafe)
    }
    // C0 (32), DEL and C1 (33), the separators (2), embeddings (5) and isolates (4).
    #expect(unsafe == 76)
  }

  @Test func theBytesAnswerWhatTheScalarsAnswer() {
    var random = SeededRandom(seed: 26)
    let pieces = [
      "a", "Z", " ", "é", "€", "🧴", "\u{2027}", "\u{202F}", "\u{2065}", "\u{206A}", "\u{A0}",
      "\u{FF}", "ש", "\u{1B}", "\u{9B}", "\u{2028}", "\u{202E}", "\n", "\u{7F}", "\u{85}",
      "\u{80}", "\u{9F}", "\u{2029}", "\u{2066}", "\u{2069}", "\u{1F}", "\u{C0}", "\u{2080}",
    ]
    var passed = 0
    for _ in 0..<20_000 {
      let count = Int(random.next() % 12)
      let text = (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
        .joined()
      let holds = text.unicodeScalars.contains(where: UnsafeScalars.contains)
      #expect(UnsafeScalars.areIn(text) == holds, "\(text.unicodeScalars.map(\.value))")
      if !holds { passed += 1 }
    }
    #expect(passed > 1_000)
    #expect(!UnsafeScalars.areIn("Shampoo, 250 ml — salon stock, 12 € … ok"))
  }

  /// Long runs of plain text, read eight bytes at a time, with what must be found anywhere in
  /// them (at every offset from a word's start).
  @Test func plainRunsAreReadAWordAtATimeAndMissNothing() {
    var random = SeededRandom(seed: 2026)
    let plain = Array(" ~!0Az{}".unicodeScalars)
    let pieces = ["é", "\u{1B}", "\u{7F}", "\u{85}", "\u{2028}", "\u{2069}", "\u{1F}", "€", "\t"]
    var found = 0
    for _ in 0..<20_000 {
      var text = String.UnicodeScalarView()
      for _ in 0..<Int(random.next() % 40) {
        text.append(plain[Int(random.next() % UInt64(plain.count))])
      }
      if random.next() % 2 == 0 {
        let piece = pieces[Int(random.next() % UInt64(pieces.count))].unicodeScalars
        let at = text.index(text.startIndex, offsetBy: Int(random.next() % UInt64(text.count + 1)))
        text.insert(contentsOf: piece, at: at)
      }
      let string = String(text)
      let holds = string.unicodeScalars.contains(where: UnsafeScalars.contains)
      #expect(UnsafeScalars.areIn(string) == holds, "\(string.unicodeScalars.map(\.value))")
      if holds { found += 1 }
    }
    #expect(found > 5_000)
  }
}
