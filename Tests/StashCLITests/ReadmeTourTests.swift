import Foundation
import StashBase
import StashTestSupport
import Testing

/// The README's quick tour, run exactly as written: each line of its first `sh` block, in a
/// fresh empty folder, with `stash` on the path. The test makes no file of its own, so a file
/// the tour names must be made by a command the tour shows.
@Suite struct ReadmeTourTests {
  /// The lines of the first `sh` block after the heading `heading`, comment lines left out.
  static func block(after heading: String) throws -> [String] {
    let here = URL(fileURLWithPath: #filePath)
    let readme = try String(
      contentsOf: here.deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md"), encoding: .utf8)
    let section = try #require(readme.range(of: "\n" + heading + "\n"))
    let open = try #require(
      readme.range(of: "```sh\n", range: section.upperBound..<readme.endIndex))
    let close = try #require(readme.range(of: "\n```", range: open.upperBound..<readme.endIndex))
    return readme[open.upperBound..<close.lowerBound].split(separator: "\n").map(String.init)
      .filter { !$0.hasPrefix("#") && !$0.trimmingCharacters(in: .whitespaces).isEmpty }
  }

  @Test func theQuickTourRunsAsWrittenInAnEmptyFolder() throws {
    let lines = try Self.block(after: "## Quick tour")
    #expect(lines.count > 10, "the tour was found")
    try withCLI { cli in
      let tour = cli.folder.appendingPathComponent("tour")
      try FileManager.default.createDirectory(at: tour, withIntermediateDirectories: true)
      let bin = CLI.binary.deletingLastPathComponent().path
      for line in lines {
        // One shell per line, as a person types them; the folder is the tour's state.
        let run = try cli.shell(
          "PATH='\(bin)':\"$PATH\"; cd '\(tour.path)' || exit 99\n" + line)
        #expect(run.status == 0, "\(line)\n\(run)")
        if run.status != 0 { return }
      }
      // What the tour names exists: the photo it attached and the export it wrote.
      let made = try FileManager.default.contentsOfDirectory(atPath: tour.path)
      #expect(made.contains("items.csv"), "\(made)")
      let shown = try cli.run(["show", "Koleston 7/1", "--json"]).json()
      #expect(shown["fields"]?["photo"]?["size"]?.integer != nil, "\(shown)")
    }
  }
}
