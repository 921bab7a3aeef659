import Foundation
import StashTestSupport
import Testing

@testable import Stash

/// How `stash import` reads CSV (issue 26, item 5: the reader that makes each field from its
/// bytes in place reads exactly what the one that copied every byte read).
@Suite struct CSVReadingTests {
  /// Every record of `text` with its line, or the problem.
  private static func read(_ text: String) -> Result<[Record], CSVProblem> {
    var records = [Record]()
    do throws(CSVProblem) {
      try CSV.forEachRecord(in: Array(text.utf8)) {
        $0
      } _: { (line, fields) throws(CSVProblem) in
        records.append(Record(line: line, fields: fields))
      }
      return .success(records)
    } catch {
      return .failure(error)
    }
  }

  private struct Record: Equatable, CustomStringConvertible {
    let line: Int
    let fields: [String]
    var description: String { "\(line): \(fields)" }
  }

  @Test func readsQuotesLineBreaksAndBlankLines() throws {
    let text =
      "name,notes\r\n\"Tube, large\",\"says \"\"hi\"\"\nthen more\"\n\n"
      + "a\"b,\"\"\r\"\",\"\"\n\"\"\nlast,"
    let records = try Self.read(text).get()
    #expect(
      records == [
        Record(line: 1, fields: ["name", "notes"]),
        Record(line: 2, fields: ["Tube, large", "says \"hi\"\nthen more"]),
        Record(line: 5, fields: ["a\"b", ""]),
        Record(line: 6, fields: ["", ""]),
        Record(line: 8, fields: ["last", ""]),
      ], "\(records)")
  }

  @Test func namesTheLineOfAnUnclosedQuoteAndOfTextAfterAClosingOne() {
    #expect(Self.problem("a\nb,\"open\nstill open") == CSVProblemText(2, "an unclosed quote"))
    #expect(
      Self.problem("a\nb,\"two\nlines\"x,c") == CSVProblemText(3, "text after a closing quote"))
  }

  /// The bytes are checked as UTF-8 as the fields are made of them: a byte that is not is
  /// found in a field without quotes, in a quoted one, and in the last one.
  @Test(arguments: [
    [0x61, 0xFF, 0x2C, 0x62], [0x22, 0xC3, 0x22, 0x0A], [0x61, 0x0A, 0xE2, 0x82],
  ])
  func findsBytesThatAreNotUTF8(bytes: [UInt8]) {
    var problem: CSVProblem?
    do throws(CSVProblem) {
      try CSV.forEachRecord(in: bytes) {
        $0
      } _: { (_, _) throws(CSVProblem) in
      }
    } catch {
      problem = error
    }
    #expect(problem?.isNotUTF8 == true, "\(bytes)")
  }

  /// An import of a file that is not UTF-8 says so, in either format.
  @Test(arguments: ["items.csv", "items.jsonl"])
  func anImportOfAFileThatIsNotUTF8IsRefusedAsSuch(name: String) throws {
    try withTemporaryFolder { folder in
      let file = folder.appendingPathComponent(name)
      try Data(Array("name,quantity\nTube ".utf8) + [0xFF] + Array(",3\n".utf8)).write(to: file)
      #expect {
        try DeviceFolder.readImport(at: file.path, now: epoch)
      } throws: { error in
        (error as? StashError)?.message
          == "The file '\(file.path)' is not UTF-8 text; export it again"
      }
    }
  }

  /// Random texts of the bytes that matter (and one character of two bytes) read as the
  /// reader before this one read them: the same records, lines and problems.
  @Test func readsWhatTheByteAtATimeReaderRead() {
    var random = SeededRandom(seed: 26_5)
    let pieces = ["a", "é", ",", "\"", "\"\"", "\n", "\r", "\r\n", " "]
    for _ in 0..<5_000 {
      let count = Int(random.next() % 24)
      let text = (0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }
        .joined()
      let expected = ReferenceCSV.records(text)
      let got = Self.read(text)
      switch (expected, got) {
      case (.success(let old), .success(let new)):
        #expect(
          old.map(\.line) == new.map(\.line) && old.map(\.fields) == new.map(\.fields),
          "seed \(random.seed): \(text.debugDescription): \(old) and \(new)")
      case (.failure(let old), .failure(let new)):
        #expect(
          old.line == new.line && old.reason == new.reason,
          "seed \(random.seed): \(text.debugDescription)")
      default:
        Issue.record("seed \(random.seed): \(text.debugDescription): \(expected) and \(got)")
      }
    }
  }

  private struct CSVProblemText: Equatable {
    let line: Int
    let reason: String
    init(_ line: Int, _ reason: String) {
      self.line = line
      self.reason = reason
    }
  }

  private static func problem(_ text: String) -> CSVProblemText? {
    guard case .failure(let problem) = read(text) else { return nil }
    return CSVProblemText(problem.line, problem.reason)
  }
}

/// The reader `stash import` had before (at 709ad27), byte for byte, as the reference.
private enum ReferenceCSV {
  static func records(_ text: String) -> Result<[(line: Int, fields: [String])], CSVProblem> {
    let bytes = Array(text.utf8)
    let comma = UInt8(ascii: ",")
    let quote = UInt8(ascii: "\"")
    let newline = UInt8(ascii: "\n")
    let carriageReturn = UInt8(ascii: "\r")
    var records = [(line: Int, fields: [String])]()
    var fields = [String]()
    var field = [UInt8]()
    var line = 1
    var recordLine = 1
    var inQuotes = false
    var afterQuote = false
    var index = 0
    let count = bytes.count
    func endField() {
      fields.append(String(decoding: field, as: UTF8.self))
      field.removeAll(keepingCapacity: true)
      afterQuote = false
    }
    while index < count {
      let byte = bytes[index]
      index += 1
      if inQuotes {
        if byte == quote {
          if index < count && bytes[index] == quote {
            field.append(quote)
            index += 1
          } else {
            inQuotes = false
            afterQuote = true
          }
        } else {
          if byte == newline { line += 1 }
          field.append(byte)
        }
        continue
      }
      switch byte {
      case comma:
        endField()
      case newline, carriageReturn:
        if byte == carriageReturn && index < count && bytes[index] == newline { index += 1 }
        endField()
        if fields != [""] { records.append((recordLine, fields)) }
        fields = []
        line += 1
        recordLine = line
      case quote where field.isEmpty && !afterQuote:
        inQuotes = true
      default:
        guard !afterQuote else {
          return .failure(CSVProblem(line: line, reason: "text after a closing quote"))
        }
        field.append(byte)
      }
    }
    guard !inQuotes else {
      return .failure(CSVProblem(line: recordLine, reason: "an unclosed quote"))
    }
    endField()
    if fields != [""] { records.append((recordLine, fields)) }
    return .success(records)
  }
}
