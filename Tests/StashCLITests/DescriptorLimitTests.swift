import Foundation
import Testing

/// A command started with almost every file descriptor in use: without a free one the Dispatch
/// runtime traps (SIGILL, no message) when the first global queue sets up its event loop, so
/// the tool checks for room first and says what to do.
@Suite struct DescriptorLimitTests {
  @Test(arguments: [5, 8])
  func aCommandWithTooFewFreeDescriptorsSaysSoAndChangesNothing(limit: Int) throws {
    try withCLI { cli in
      #expect(try cli.run(["add", "Soap"]).status == 0)
      let before = try folderContents(cli.home)
      for command in ["sync status", "list", "consume Soap"] {
        let run = try cli.shell("ulimit -n \(limit); exec \"$0\" \(command)")
        #expect(run.status == 1, "\(command): \(run)")
        #expect(run.standardError.contains("Too few file descriptors are free"), "\(run)")
        #expect(run.standardError.contains("ulimit -n"), "\(run)")
        #expect(try folderContents(cli.home) == before)
      }
      #expect(try cli.shell("ulimit -n 64; exec \"$0\" sync status").status == 0)
    }
  }
}
