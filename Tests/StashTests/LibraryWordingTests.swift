import Foundation
import Stash
import StashModel
import StashTestSupport
import Testing

/// The library's messages are worded for any tool: none names a `stash` command. What to do
/// travels as a typed ``Hint`` the CLI words as its own command.
@Suite struct LibraryWordingTests {
  /// Every string literal line of the library modules' sources (comments left out) that
  /// names a `stash` command in quotes.
  @Test func noLibraryMessageNamesAStashCommand() throws {
    let sources = Fixtures.root.deletingLastPathComponent().appendingPathComponent("Sources")
    let modules = [
      "JSONLines", "LocalStore", "MirrorStore", "Reconciler", "CloudFolder", "Stash",
      "MeterSettings",
    ]
    var found = [String]()
    for module in modules {
      let folder = sources.appendingPathComponent(module)
      let files = try #require(FileManager.default.enumerator(atPath: folder.path))
      for case let file as String in files where file.hasSuffix(".swift") {
        let text = try String(
          contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        for (number, line) in text.split(separator: "\n").enumerated() {
          let code = line.drop { $0 == " " }
          guard !code.hasPrefix("//"), code.contains("'stash ") else { continue }
          found.append("\(module)/\(file):\(number + 1): \(code)")
        }
      }
    }
    #expect(found == [], "\(found.joined(separator: "\n"))")
  }
}
