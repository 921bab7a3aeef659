public import Foundation
import JSONLines

/// Every moment an operation can be cut short by a crash, and a way to try each of them.
///
/// Run the operation once through a ``ScriptedFileSystem`` to learn its calls; then
/// ``points(of:seed:garbledEvery:coarse:)`` lists the crashes to try: before each call (a
/// kill: what was written stays), at each call after a power loss (everything written since a
/// file's last fsync is garbage), and for each write, a write that stops at every byte offset
/// and one whose rest is garbage (a "VFS that drops or garbles unsynced writes", as SQLite's
/// crash tests have).
public enum CrashSweep {
  /// One crash: at which of the operation's calls (1 is its first), and how.
  public struct Point: Sendable, CustomStringConvertible {
    public let call: Int
    public let crash: ScriptedFileSystem.Crash

    public var description: String {
      switch crash {
      case .before: "a crash before call \(call)"
      case .torn(let kept): "a crash in the write of call \(call) after \(kept) bytes"
      case .garbled(let kept, let garbage):
        "a power loss at call \(call) (a write keeps \(kept) bytes, then \(garbage.count) of garbage; "
          + "every unsynced byte is garbage)"
      case .kill(let kept?): "a kill in the write of call \(call) after \(kept) bytes"
      case .kill(nil): "a kill before call \(call)"
      }
    }
  }

  /// The crash points of an operation whose calls (from its first) were `calls`.
  ///
  /// - Parameters:
  ///   - calls: The operation's calls, as logged by a run without faults.
  ///   - seed: Chooses the garbage (random bytes, a newline now and then, so that some
  ///     garbage looks like complete lines).
  ///   - garbledEvery: Garble at every `n`th byte offset of a write (1: every offset).
  ///   - coarse: Writes swept at every tenth offset only (those another sweep covers).
  /// - Returns: The points, in call order.
  public static func points(
    of calls: [ScriptedFileSystem.Call], seed: UInt64, garbledEvery: Int = 1,
    coarse: (ScriptedFileSystem.Call) -> Bool = { _ in false }
  ) -> [Point] {
    guard let first = calls.first(where: { $0.number > 0 })?.number else { return [] }
    var random = SeededRandom(seed: seed)
    var points: [Point] = []
    for call in calls where call.number > 0 {
      let number = call.number - first + 1
      points.append(Point(call: number, crash: .before))
      guard call.operation == .write, let length = call.length else {
        let garbage = random.bytes(64).map { $0 % 16 == 0 ? UInt8(ascii: "\n") : $0 }
        points.append(Point(call: number, crash: .garbled(keepingBytes: 0, garbage: garbage)))
        continue
      }
      let step = coarse(call) ? 10 : 1
      for kept in Swift.stride(from: 0, to: length, by: step) {
        points.append(Point(call: number, crash: .torn(keepingBytes: kept)))
        guard kept % (garbledEvery * step) == 0 else { continue }
        let garbage = random.bytes(length - kept).map { byte in
          byte % 16 == 0 ? UInt8(ascii: "\n") : byte
        }
        points.append(Point(call: number, crash: .garbled(keepingBytes: kept, garbage: garbage)))
      }
      points.append(Point(call: number, crash: .torn(keepingBytes: length)))
    }
    return points
  }
}

/// Copies a folder, for a fresh start of each crash.
public func copyFolder(_ source: URL, to destination: URL) throws {
  try? FileManager.default.removeItem(at: destination)
  try FileManager.default.copyItem(at: source, to: destination)
}
