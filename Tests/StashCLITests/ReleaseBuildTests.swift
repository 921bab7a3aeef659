import Foundation
import StashTestSupport
import Testing

/// The README's release build (`swift build -c release --static-swift-stdlib`) builds every
/// target that is not a test target, the test-only helpers under `Tests/` too, and a release
/// toolchain has no `Testing` (or `XCTest`) to link them with: one `import Testing` in
/// `StashTestSupport` broke that command while every test passed (stop 37). This holds the
/// rule the build cannot check in a debug run.
@Suite struct ReleaseBuildTests {
  /// The folders of every target the release build compiles: `Sources/*`, and the targets
  /// `Package.swift` places under `Tests/` that are not test targets.
  static func releaseTargetFolders() throws -> [URL] {
    let repository = Fixtures.root.deletingLastPathComponent()
    let manifest = try String(
      contentsOf: repository.appendingPathComponent("Package.swift"), encoding: .utf8)
    var folders = try FileManager.default.contentsOfDirectory(
      at: repository.appendingPathComponent("Sources"), includingPropertiesForKeys: nil)
    // `.target(...)` and `.executableTarget(...)` entries with `path: "Tests/…"`.
    for entry in manifest.components(separatedBy: "\n    .").dropFirst()
    where !entry.hasPrefix("testTarget") {
      guard let start = entry.range(of: "path: \"Tests/") else { continue }
      let path = entry[start.upperBound...].prefix { $0 != "\"" }
      folders.append(repository.appendingPathComponent("Tests/" + path))
    }
    return folders
  }

  @Test func noTargetTheReleaseBuildCompilesImportsATestFramework() throws {
    let folders = try Self.releaseTargetFolders()
    #expect(folders.contains { $0.lastPathComponent == "StashTestSupport" })
    #expect(folders.contains { $0.lastPathComponent == "StashWorkload" })
    #expect(folders.contains { $0.lastPathComponent == "stash" })
    var checked = 0
    for folder in folders {
      let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
      while let file = files?.nextObject() as? URL {
        guard file.pathExtension == "swift" else { continue }
        checked += 1
        let text = try String(contentsOf: file, encoding: .utf8)
        for line in text.split(separator: "\n") {
          let words = line.split(separator: " ")
          guard let keyword = words.firstIndex(of: "import"), keyword + 1 < words.count else {
            continue
          }
          #expect(
            !["Testing", "XCTest"].contains(words[keyword + 1]),
            "\(file.path) imports \(words[keyword + 1]), which a release build cannot link")
        }
      }
    }
    #expect(checked > 100)
  }
}
