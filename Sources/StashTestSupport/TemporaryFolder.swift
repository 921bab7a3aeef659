public import Foundation

/// A fresh folder for one test, removed when the body returns or throws.
///
/// Tests never share folders: each call makes a new one under the system's temporary
/// directory.
///
/// - Parameter body: Receives the folder's URL.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, or the error creating the folder.
public func withTemporaryFolder<T>(_ body: (URL) throws -> T) throws -> T {
  let folder = try makeTemporaryFolder()
  defer { try? FileManager.default.removeItem(at: folder) }
  return try body(folder)
}

/// The `async` form of ``withTemporaryFolder(_:)``.
public func withTemporaryFolderAsync<T>(_ body: (URL) async throws -> T) async throws -> T {
  let folder = try makeTemporaryFolder()
  defer { try? FileManager.default.removeItem(at: folder) }
  return try await body(folder)
}

private func makeTemporaryFolder() throws -> URL {
  let base = FileManager.default.temporaryDirectory
  let folder = base.appendingPathComponent("stash-test-\(UUID().uuidString.lowercased())")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  return folder
}
