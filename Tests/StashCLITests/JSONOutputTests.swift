import Foundation
import StashBase
import StashModel
import StashTestSupport
import Testing

/// Every `--json` output of a scripted two-device session, compared with its golden file
/// under `Fixtures/cli/`. Ids, hashes and paths vary from run to run, so each distinct one is
/// replaced by a numbered placeholder (`<uuid-1>`, `<hex-2>`, `<folder>`, a counter's tallies
/// `<tallies>`) first: the golden file
/// pins the shape and every other value. `STASH_RECORD_FIXTURES=1` rewrites them and fails.
@Suite struct JSONOutputTests {
  let views = SharedFolderViews()

  @Test func everyJSONOutputMatchesItsGoldenFile() throws {
    try withCLI { cli in
      let devices = try views.devices(cli, ["salon-mac", "salon-iphone"])
      let (mac, phone) = (devices[0], devices[1])
      var outputs: [(String, CLI, [String])] = [
        ("add", mac, ["add", "Koleston 7/1", "--quantity", "5", "--unit", "tube", "--json"]),
        ("location-add", mac, ["location", "add", "basement", "--json"]),
        ("sync", mac, ["sync", "--json"]),
      ]
      var recorded = [String]()
      var failures = [String]()
      func check(_ name: String, _ device: CLI, _ arguments: [String]) throws {
        let run = try device.run(arguments)
        let normalized = Self.normalize(run.standardOutput, folder: cli.folder.path)
        let url = Fixtures.url("cli/\(name).json")
        if Fixtures.isRecording {
          try FileManager.default.createDirectory(
            at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
          try Data(normalized.utf8).write(to: url)
          recorded.append(name)
          return
        }
        let expected = (try? String(contentsOf: url, encoding: .utf8)) ?? "(missing)"
        if expected != normalized { failures.append("\(name): \(normalized)") }
        _ = try JSONParser.parse(run.standardOutput)
      }
      for (name, device, arguments) in outputs { try check(name, device, arguments) }
      try views.sync(phone)
      try phone.run(["consume", "Koleston 7/1"])
      try views.sync(phone)
      try views.sync(mac)
      outputs = [
        ("list", mac, ["list", "--json"]),
        ("show", mac, ["show", "Koleston 7/1", "--json"]),
        ("location-list", mac, ["location", "list", "--json"]),
        ("sync-status", mac, ["sync", "status", "--json"]),
        ("sync-verify", mac, ["sync", "verify", "--json"]),
        ("history", mac, ["history", "Koleston 7/1", "--json"]),
        ("conflicts", mac, ["conflicts", "--json"]),
        ("consume", mac, ["consume", "Koleston 7/1", "--json"]),
        ("undo", mac, ["undo", "Koleston 7/1", "--json"]),
        ("doctor", mac, ["doctor", "--json"]),
      ]
      for (name, device, arguments) in outputs { try check(name, device, arguments) }
      // Something on each side of `list --pending`: a new item, and a deletion not sent yet.
      try phone.run(["add", "Comb"])
      try phone.run(["delete", "Koleston 7/1"])
      try check("list-pending", phone, ["list", "--pending", "--json"])
      if Fixtures.isRecording {
        Issue.record("Recorded \(recorded.count) JSON outputs under Fixtures/cli; review the diff")
      }
      #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))")
    }
  }

  /// Numbers each distinct UUID and 64-hex value in order of appearance, and hides the test's
  /// temporary folder.
  static func normalize(_ text: String, folder: String) -> String {
    var result = text.replacingOccurrences(of: folder, with: "<folder>")
    // A counter's tallies are keyed by device ids, in the order of their random values.
    result = result.replacingOccurrences(
      of: #""([pn])":\{[^{}]*\}"#, with: #""$1":"<tallies>""#, options: .regularExpression)
    for (pattern, label) in [
      ("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "uuid"),
      ("[0-9a-f]{64}", "hex"),
    ] {
      var seen = [String: Int]()
      let regex = try! NSRegularExpression(pattern: pattern)
      let matches = regex.matches(
        in: result, range: NSRange(result.startIndex..., in: result))
      var replaced = result
      for match in matches.reversed() {
        guard let range = Range(match.range, in: result) else { continue }
        replaced.replaceSubrange(range, with: "\u{0}\(result[range])\u{0}")
      }
      // Number in order of first appearance.
      var output = ""
      for (index, part) in replaced.split(separator: "\u{0}", omittingEmptySubsequences: false)
        .enumerated()
      {
        if index % 2 == 1 {
          let number = seen[String(part)] ?? (seen.count + 1)
          seen[String(part)] = number
          output += "<\(label)-\(number)>"
        } else {
          output += part
        }
      }
      result = output
    }
    return result
  }
}
