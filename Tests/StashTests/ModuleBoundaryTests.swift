import Foundation
import StashTestSupport
import Testing

/// The import rules of DESIGN.md, checked on the sources: a change that breaks them fails here
/// even if it compiles.
@Suite struct ModuleBoundaryTests {
  static let sources = Fixtures.root.deletingLastPathComponent().appendingPathComponent("Sources")

  static func imports(of module: String) throws -> Set<String> {
    let folder = sources.appendingPathComponent(module)
    var found = Set<String>()
    let files =
      FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
    for file in files where file.hasSuffix(".swift") {
      let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
      for line in text.split(separator: "\n") {
        let words = line.split(separator: " ")
        if let index = words.firstIndex(of: "import"), index + 1 < words.count,
          words[..<index].allSatisfy({
            ["public", "internal", "package", "@testable"].contains($0)
          })
        {
          found.insert(String(words[index + 1]))
        }
      }
    }
    return found
  }

  @Test(arguments: [
    ("LocalStore", "MirrorStore"), ("MirrorStore", "LocalStore"),
    ("CloudFolder", "LocalStore"), ("CloudFolder", "Reconciler"),
    ("StashModel", "JSONLines"), ("JSONLines", "LocalStore"), ("JSONLines", "MirrorStore"),
  ])
  func moduleNeverImports(module: String, forbidden: String) throws {
    #expect(!(try Self.imports(of: module)).contains(forbidden))
  }

  /// DESIGN.md: `stash` imports `Stash` (and `StashModel`, which every module imports).
  @Test func theCommandLineToolReachesTheEngineOnlyThroughTheFacade() throws {
    let engine: Set = ["JSONLines", "LocalStore", "MirrorStore", "Reconciler", "CloudFolder"]
    #expect(try Self.imports(of: "stash").isDisjoint(with: engine))
  }

  @Test func theBoundaryCheckSeesRealImports() throws {
    #expect(try Self.imports(of: "LocalStore").contains("JSONLines"))
    #expect(try Self.imports(of: "MirrorStore").contains("StashModel"))
  }
}
