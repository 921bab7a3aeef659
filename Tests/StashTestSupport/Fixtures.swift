public import Foundation

/// Locates the repository's `Fixtures/` folder from the tests.
///
/// The tests run from a clean clone with nothing but the Swift toolchain, so fixtures are
/// found relative to this source file rather than through bundle resources.
public enum Fixtures {
  /// The `Fixtures/` folder at the top of the repository.
  public static let root: URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent()  // StashTestSupport
    .deletingLastPathComponent()  // Sources
    .deletingLastPathComponent()  // repository
    .appendingPathComponent("Fixtures", isDirectory: true)

  /// The URL of a file or folder below `Fixtures/`.
  ///
  /// - Parameter relativePath: A path such as `"snapshots/vectors.jsonl"`.
  /// - Returns: The URL; the file is not checked for existence.
  public static func url(_ relativePath: String) -> URL {
    root.appendingPathComponent(relativePath)
  }

  /// The bytes of a fixture file.
  ///
  /// - Parameter relativePath: A path below `Fixtures/`.
  /// - Throws: The file system's error when the file cannot be read.
  public static func bytes(_ relativePath: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: url(relativePath)))
  }

  /// The names of the entries of a fixture folder, sorted.
  ///
  /// - Parameter relativePath: A folder below `Fixtures/`.
  /// - Returns: Entry names (not paths), sorted; an empty array when the folder is missing.
  public static func entries(_ relativePath: String) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: url(relativePath).path)) ?? []
    return names.sorted()
  }

  /// Whether tests should rewrite their golden expectations (`STASH_RECORD_FIXTURES=1`).
  public static var isRecording: Bool {
    ProcessInfo.processInfo.environment["STASH_RECORD_FIXTURES"] == "1"
  }
}
