import Foundation
import StashBase
import StashFiles
import StashModel
import StashTestSupport
import Synchronization
import Testing

@testable import JSONLines

/// An append writes a large transaction a group of lines at a time, so that it never holds
/// every line's bytes at once (a first sync's pass writes the whole store in one).
@Suite struct GroupedAppendTests {
  static var count: Int { 3 * Log.linesPerGroup + 17 }

  @Test func theFirstLinesAreWrittenBeforeTheLastIsEncoded() throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      try log.append([operation(-1)])
      let before = try fileBytes(path).count
      let count = Self.count
      let sizeAtLast = Mutex<Int?>(nil)
      let spans = try log.append(count: count) { index in
        if index == count - 1 {
          let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int
          sizeAtLast.withLock { $0 = size }
        }
        return operation(index)
      }
      let size = try #require(sizeAtLast.withLock { $0 })
      #expect(size >= before + 2 * Log.linesPerGroup * spans[0].length)
      let (transactions, tail, reopened) = try readLog(path)
      #expect(transactions == [[-1], Array(0..<count)])
      #expect(tail == nil)
      #expect(reopened.lastCommit == log.lastCommit)
      // The spans name the lines the file holds.
      let bytes = try fileBytes(path)
      for index in [0, Log.linesPerGroup - 1, Log.linesPerGroup, count - 1] {
        let span = spans[index]
        let line = bytes[Int(span.offset)..<(Int(span.offset) + span.length)]
        #expect(String(decoding: line, as: UTF8.self).contains("\"n\":\(index),"))
        #expect(bytes[Int(span.offset) + span.length] == UInt8(ascii: "\n"))
      }
    }
  }

  /// A line over the limit deep in a large transaction writes nothing: in the first group
  /// nothing was written yet; in a later one, what the earlier groups wrote is cut off.
  @Test(arguments: [false, true])
  func aLineOverTheLimitLeavesTheFileAsItWas(inALaterGroup: Bool) throws {
    try withTemporaryFolder { folder in
      let path = folder.appendingPathComponent("a.store").path
      let log = try Log.create(at: path, header: testHeader)
      try log.append([operation(1)])
      let before = try fileBytes(path)
      let bad = inALaterGroup ? 2 * Log.linesPerGroup + 5 : 3210
      let text = String(repeating: "y", count: LogLimits.maximumLineLength)
      #expect {
        try log.append(count: Self.count) { $0 == bad ? operation($0, text) : operation($0) }
      } throws: { error in
        guard case LogError.lineTooLong = error else { return false }
        return true
      }
      #expect(try fileBytes(path) == before)
      try log.append([operation(5000)])
      #expect(try readLog(path).transactions == [[1], [5000]])
    }
  }
}
