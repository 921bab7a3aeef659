public import Foundation

/// A fresh folder for one test, removed when the body returns or throws.
///
/// Tests never share folders: each call makes a new one under the system's temporary
/// directory.
///
/// - Parameter body: Receives the folder's URL.
/// - Returns: What `body` returns.
/// - Throws: What `body` throws, or the error creating the folder.
/// - Parameters:
///   - inMemory: Put it in memory (`/dev/shm`) when the system has such a folder: for tests
///     that make thousands of fsyncs whose durability they do not measure (their faults and
///     crashes go through the file-system seam, or are process kills, which lose no page).
///   - body: Receives the folder's URL.
public func withTemporaryFolder<T>(
  inMemory: Bool = false, _ body: (URL) throws -> T
) throws -> T {
  let folder = try makeTemporaryFolder(inMemory: inMemory)
  defer { try? FileManager.default.removeItem(at: folder) }
  return try body(folder)
}

/// The `async` form of ``withTemporaryFolder(_:)``.
public func withTemporaryFolderAsync<T>(
  inMemory: Bool = false, _ body: (URL) async throws -> T
) async throws -> T {
  let folder = try makeTemporaryFolder(inMemory: inMemory)
  defer { try? FileManager.default.removeItem(at: folder) }
  return try await body(folder)
}

private func makeTemporaryFolder(inMemory: Bool) throws -> URL {
  let memory = URL(fileURLWithPath: "/dev/shm")
  let base =
    inMemory && FileManager.default.isWritableFile(atPath: memory.path)
    ? memory : FileManager.default.temporaryDirectory
  let folder = base.appendingPathComponent("stash-test-\(UUID().uuidString.lowercased())")
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  return folder
}
