import Foundation
import Stash
import StashModel
import Testing

/// One refused command line: what it is run on, the exit status it must get, and a piece of
/// the message that names the culprit.
struct BadInput: Sendable, CustomTestStringConvertible {
  /// The folder the command runs on.
  enum Setup: Sendable {
    /// No device folder at all.
    case empty
    /// Items `Soap` (3 bar), two called `Shampoo`, and a location `shop`.
    case stocked
    /// The device folder's path is a regular file.
    case homeIsAFile
    /// A parent of the device folder's path is a regular file.
    case homeBelowAFile
  }

  var arguments: [String]
  var setup: Setup
  var status: Int32
  var culprit: String

  init(
    _ arguments: [String], on setup: Setup = .stocked, exits status: Int32, naming culprit: String
  ) {
    self.arguments = arguments
    self.setup = setup
    self.status = status
    self.culprit = culprit
  }

  var testDescription: String { "stash \(arguments.joined(separator: " ")) (\(setup))" }
}

@Suite struct BadInputTests {
  static let missingPhoto = "/nonexistent/photo.jpg"

  static let cases: [BadInput] = [
    // Usage mistakes: exit 2, found by the parser or before the folder is opened.
    BadInput(["frobnicate"], exits: 2, naming: "'frobnicate'"),
    BadInput(["add", "Soap", "--quantty", "5"], exits: 2, naming: "'--quantty'"),
    BadInput(["add", "Soap", "--quantity"], exits: 2, naming: "'--quantity'"),
    BadInput(["add", "Soap", "--quantity", "abc"], exits: 2, naming: "'abc'"),
    BadInput(
      ["add", "Soap", "--quantity", "99999999999999999999"], exits: 2,
      naming: "'99999999999999999999'"),
    BadInput(["consume", "Soap", "two"], exits: 2, naming: "'two'"),
    BadInput(["consume"], exits: 2, naming: "'<ITEM>'"),
    BadInput(["restock", "Soap"], exits: 2, naming: "'<N>'"),
    BadInput(["edit", "Soap"], exits: 2, naming: "'stash edit'"),
    BadInput(["edit", "Soap", "--photo", "x.jpg", "--no-photo"], exits: 2, naming: "'--photo'"),
    BadInput(["location", "edit", "shop"], exits: 2, naming: "'stash location edit'"),
    BadInput(["reminder", "add", "--location", "shop"], exits: 2, naming: "'--message'"),
    BadInput(
      ["reminder", "add", "--location", "shop", "--message", "Hi", "--trigger", "arive"],
      exits: 2, naming: "'arive'"),
    BadInput(
      ["conflicts", "resolve", "51aa", "--keep", "sideways"], exits: 2, naming: "'sideways'"),
    BadInput(["list", "--json=yes"], exits: 2, naming: "'--json'"),
    BadInput(["list", "extra"], exits: 2, naming: "'extra'"),

    // Refused input: exit 1.
    BadInput(["add", "Soap", "--quantity", "-3"], exits: 1, naming: "'-3'"),
    BadInput(["add", "Soap", "--quantity", "2000000"], exits: 1, naming: "'2000000'"),
    BadInput(["add", "Soap", "--low-stock", "-1"], exits: 1, naming: "'-1'"),
    BadInput(
      [
        "add", "", "--quantity", "2",
      ], on: .empty, exits: 1, naming: "item needs a name"),
    BadInput(["add", "   "], exits: 1, naming: "item needs a name"),
    BadInput(["add", "Soap", "--unit", "bar\u{7}"], exits: 1, naming: "unit"),
    BadInput(["add", "Soap", "--photo", missingPhoto], on: .empty, exits: 1, naming: missingPhoto),
    BadInput(["add", "Soap", "--location", "nowhere"], on: .empty, exits: 1, naming: "'nowhere'"),
    BadInput(["consume", "Soap", "10"], exits: 1, naming: "only 3 bar left"),
    BadInput(["consume", "Soap", "0"], exits: 1, naming: "'0'"),
    BadInput(["consume", "Soap", "-1"], exits: 1, naming: "'-1'"),
    BadInput(["consume", "Nothing"], exits: 1, naming: "'Nothing'"),
    BadInput(["consume", "Shampoo"], exits: 1, naming: "'Shampoo' matches 2 items"),
    BadInput(["consume", "Soap"], on: .empty, exits: 1, naming: "has no inventory yet"),
    BadInput(["restock", "Soap", "1000000"], exits: 1, naming: "'Soap'"),
    BadInput(["show", "Nothing"], exits: 1, naming: "'Nothing'"),
    BadInput(["show", "Soap"], on: .empty, exits: 1, naming: "'Soap'"),
    BadInput(["edit", "Soap", "--name", ""], exits: 1, naming: "item needs a name"),
    BadInput(["edit", "Soap", "--quantity", "-5"], exits: 1, naming: "'-5'"),
    BadInput(["edit", "Soap", "--photo", missingPhoto], exits: 1, naming: missingPhoto),
    BadInput(["edit", "Soap", "--location", "nowhere"], exits: 1, naming: "'nowhere'"),
    BadInput(["duplicate", "Nothing"], exits: 1, naming: "'Nothing'"),
    BadInput(["delete", "Shampoo"], exits: 1, naming: "'Shampoo'"),
    BadInput(["list", "--location", "nowhere"], exits: 1, naming: "'nowhere'"),
    BadInput(
      ["location", "add", "x", "--latitude", "200", "--longitude", "4"], exits: 1,
      naming: "'200.0'"),
    BadInput(["location", "add", "x", "--latitude", "52"], exits: 1, naming: "latitude"),
    BadInput(["location", "add", "x", "--radius", "0"], exits: 1, naming: "radius"),
    BadInput(["location", "add", "SHOP"], exits: 1, naming: "'SHOP'"),
    BadInput(["location", "add", ""], on: .empty, exits: 1, naming: "needs a name"),
    BadInput(["location", "edit", "nowhere", "--radius", "5"], exits: 1, naming: "'nowhere'"),
    BadInput(["location", "delete", "nowhere"], exits: 1, naming: "'nowhere'"),
    BadInput(
      ["reminder", "add", "--location", "shop", "--message", " "], exits: 1, naming: "message"),
    BadInput(
      ["reminder", "add", "--location", "shop", "--item", "Nothing", "--message", "Hi"],
      exits: 1, naming: "'Nothing'"),
    BadInput(
      ["reminder", "add", "--location", "nowhere", "--message", "Hi"], on: .empty, exits: 1,
      naming: "'nowhere'"),
    BadInput(["reminder", "delete", "abcd"], exits: 1, naming: "'abcd'"),
    BadInput(["conflicts", "show", "abcd"], exits: 1, naming: "'abcd'"),
    BadInput(["conflicts", "resolve", "abcd", "--keep", "local"], exits: 1, naming: "'abcd'"),
    BadInput(["init", "--name", " "], on: .empty, exits: 1, naming: "'--name'"),
    BadInput(["export"], exits: 2, naming: "'--format'"),
    BadInput(["export", "--format", "xml"], exits: 2, naming: "'xml'"),
    BadInput(["import", missingPhoto], on: .empty, exits: 1, naming: missingPhoto),
    BadInput(["import", missingPhoto], exits: 1, naming: missingPhoto),
    BadInput(["add", "Soap"], on: .homeIsAFile, exits: 1, naming: "is a file"),
    BadInput(["init"], on: .homeIsAFile, exits: 1, naming: "is a file"),
    BadInput(["location", "add", "shop"], on: .homeBelowAFile, exits: 1, naming: "is a file"),
    BadInput(["list"], on: .homeIsAFile, exits: 1, naming: "is a file"),
  ]

  @Test(arguments: cases)
  func isRefusedWithItsExitStatusAMessageAndNoChange(_ input: BadInput) throws {
    try withCLI { cli in
      var cli = cli
      let blocker = try prepare(&cli, for: input.setup)
      let before = cli.storeBytes()
      let blockerBytes = try blocker.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
      let run = try cli.run(input.arguments)
      #expect(run.status == input.status, "\(run)")
      #expect(run.standardOutput.isEmpty, "\(run)")
      #expect(run.standardError.contains(input.culprit), "\(run)")
      #expect(!run.standardError.hasSuffix(".\n"), "\(run)")
      #expect(cli.storeBytes() == before)
      if input.setup == .empty {
        #expect(!FileManager.default.fileExists(atPath: cli.home.path), "created the folder")
      }
      if let blocker {
        #expect(try Data(contentsOf: URL(fileURLWithPath: blocker)) == blockerBytes)
      }
    }
  }

  @Test func anArgumentThatIsNotUTF8IsRefusedNotRepaired() throws {
    try withCLI { cli in
      try prepareStocked(cli)
      let before = cli.storeBytes()
      let run = try cli.shell(#"exec "$0" add "$(printf 'Soap\377')" --quantity 2"#)
      #expect(run.status == 1, "\(run)")
      #expect(run.standardError.contains(#"'Soap\xFF'"#), "\(run)")
      #expect(run.standardError.contains("UTF-8"))
      #expect(cli.storeBytes() == before)
    }
  }

  @Test func theTableIsLargeEnough() {
    #expect(Self.cases.count >= 30)
    #expect(Set(Self.cases.map(\.status)) == [1, 2])
  }

  /// Sets up the folder; returns the path of a blocking file to check it stays as it was.
  private func prepare(_ cli: inout CLI, for setup: BadInput.Setup) throws -> String? {
    switch setup {
    case .empty:
      return nil
    case .stocked:
      try prepareStocked(cli)
      return nil
    case .homeIsAFile:
      try Data("not a folder".utf8).write(to: cli.home)
      return cli.home.path
    case .homeBelowAFile:
      let blocker = cli.home
      try Data("not a folder".utf8).write(to: blocker)
      cli.home = blocker.appendingPathComponent("inner")
      return blocker.path
    }
  }

  private func prepareStocked(_ cli: CLI) throws {
    let device = try cli.device()
    let shop = try device.addLocation(Location(name: "shop", createdAt: epoch))
    try device.addItem(
      Item(name: "Soap", quantity: 3, unit: "bar", locationID: shop.id, createdAt: epoch))
    try device.addItem(Item(name: "Shampoo", quantity: 1, createdAt: epoch))
    try device.addItem(Item(name: "shampoo", quantity: 2, createdAt: epoch))
  }
}
