#if os(Linux)
  import Foundation
  import StashTestSupport
  import Testing

  /// The Apple branch of ``FileEvents`` (kqueue) cannot be built here, so it is type-checked
  /// against `Fixtures/darwin-kqueue`: the declarations it uses from Darwin, as macOS declares
  /// them. A change to that branch that would not compile on macOS fails here.
  @Suite struct FileEventsDarwinTests {
    @Test func theKqueueBranchTypeChecksAgainstDarwinsDeclarations() throws {
      let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/Stash")
      let events = try String(
        contentsOf: sources.appendingPathComponent("FileEvents.swift"), encoding: .utf8)
      let lines = events.split(separator: "\n", omittingEmptySubsequences: false)
      let start = try #require(lines.firstIndex(of: "#elseif canImport(Darwin)"))
      let end = try #require(lines[(start + 1)...].firstIndex { $0.hasPrefix("#e") })
      let branch = lines[(start + 1)..<end].joined(separator: "\n")
      #expect(branch.contains("kqueue()"), "the branch found is not the kqueue one")
      let swiftc = try #require(Self.swiftc(), "no swiftc on PATH")
      try withTemporaryFolder { folder in
        let file = folder.appendingPathComponent("FileEvents.swift")
        // Glibc's overlay gives open, close and stat as Darwin's does.
        try ("import Glibc\n" + branch).write(to: file, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = swiftc
        process.arguments = [
          "-typecheck", "-swift-version", "6",
          "-I", Fixtures.url("darwin-kqueue").path,
          "-module-cache-path", folder.appendingPathComponent("cache").path,
          file.path, sources.appendingPathComponent("DescriptorWatches.swift").path,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(
          process.terminationStatus == 0,
          "\(String(decoding: output, as: UTF8.self))")
      }
    }

    /// The toolchain's `swiftc`, found on `PATH`.
    static func swiftc() -> URL? {
      let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
      for folder in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("swiftc")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
      }
      return nil
    }
  }
#endif
