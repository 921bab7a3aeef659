/// The raw material of fuzz cases: odd tokens, values by placeholder, homes, and clock values.
///
/// Every path here stays inside the lane's sandbox: relative paths resolve below `root/cwd`
/// (at most one `..`), absolute ones start with the root. A value that could reach a real
/// folder (`/`, `../..`, an empty `HOME`) is never generated.
enum FuzzValues {
  /// Tokens that are odd anywhere on a command line.
  static let odd: [Bytes] = [
    "", " ", "-", "--", "---", "--=", "-=", "-1", "-0", "--9", "0", "00", "007", "+1", "1e3",
    "0x1F", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "-9223372036854775809", "999999999999999999999999999999", "1.5", "-0.5", "1.", ".5", "nan",
    "inf", ".", "..", "~", "*", "$HOME", "%s%n", "\\", "'", "\"", "a b", "\u{1B}[31mred",
    "\u{1B}]0;owned\u{07}", "\u{1B}[2J", "a\u{9B}2J", "cr\rx", "lf\nx", "tab\tx", "\u{7F}",
    "\u{202E}gnp", "\u{2066}x\u{2069}", "\u{FEFF}", "\u{200B}", "\u{2028}", "\u{2800}", "x\u{301}",
    "🧴", "👩‍👩‍👧", "שמפו", "شامبو", "İstanbul", "ß", "ǅ", "Ａ", "\u{661}\u{662}", "\u{FFFD}",
    "\u{10FFFF}", Bytes(String(repeating: "x", count: 201)),
    Bytes(String(repeating: "é", count: 5_000)), Bytes(String(repeating: "7", count: 100_000)),
    Bytes(raw: [0xFF]), Bytes(raw: [0xC0, 0x80]), Bytes(raw: [0xED, 0xA0, 0x80]),
    Bytes(raw: [0xE2, 0x82]), Bytes(raw: [0x9B, 0x32, 0x4A]),
    Bytes(raw: Array("Soap".utf8) + [0xFE]),
    "--bogus", "--json=1", "--home=", "--help=x", "-h", "--help", "--version", "-x", "-abc",
    "--no-such-option=3", "--Json", "—json",
  ]

  /// Unknown or malformed option tokens.
  static let unknownOptions: [Bytes] = [
    "--bogus", "--quantty", "--jsn", "-q", "-", "---json", "--json=", "--=x", "--home=",
    "--\u{202E}", "--\u{1B}[31m", Bytes(raw: Array("--".utf8) + [0xFF]), "--version",
    "--locaton", "--no-json",
  ]

  /// Values for a placeholder, mostly plausible so commands get past parsing.
  static func values(for placeholder: String, in sandbox: FuzzSandbox) -> [Bytes] {
    let items = sandbox.itemIDs
    switch placeholder {
    case "ITEM":
      return [
        "Soap", "soap", "Shampoo", "Tube", "nothing", Bytes(items[0]),
        Bytes(String(items[1].prefix(4))),
        Bytes(String(items[2].prefix(8))), Bytes(items[3].uppercased()), "abc", "0000",
      ]
    case "LOCATION", "L":
      return [
        "shop", "SHOP", "nowhere", Bytes(sandbox.locationIDs[0]),
        Bytes(String(sandbox.locationIDs[0].prefix(5))),
      ]
    case "ID":
      return [
        Bytes(sandbox.reminderIDs[0]), Bytes(String(sandbox.reminderIDs[0].prefix(4))), "abcd",
        "51aa", "zz",
      ]
    case "N":
      return [
        "0", "1", "2", "3", "5", "10", "1000000", "1000001", "-1", "-5", "99999999999999999999",
      ]
    case "D":
      return [
        "52.3702", "4.8952", "-0.5", "0", "90", "-90.0001", "180", "200", "150", "100001",
        "1.7976931348623157",
      ]
    case "FILE":
      return [
        "photo.jpg", Bytes(sandbox.workingFolder + "/photo.jpg"), "items.csv", "items.jsonl",
        "bad.csv", "fifo", "folder", "missing.jpg", "../file", "../loop1", "/dev/null",
      ]
    case "DIR":
      return homes(in: sandbox) + [Bytes(sandbox.root + "/cloud"), "../cloud", "folder"]
    case "csv|jsonl":
      return ["csv", "jsonl", "CSV", "json", "cvs", ""]
    case "arrive|leave":
      return ["arrive", "leave", "arive", "Leave"]
    case "local|mirror|deleted|VERSION":
      return ["local", "mirror", "deleted", "e0c4", "e0", "sideways", "LOCAL"]
    default:
      return [
        "Soap", "Box", "kitchen", "tube", "Wella", "123456", "Buy soap", "", " ", "new name",
        "Koleston 7/1",
      ]
    }
  }

  /// Folders with an inventory, spelled in several ways.
  static func stockedHomes(in sandbox: FuzzSandbox) -> [Bytes] {
    let root = sandbox.root
    return [
      Bytes(root + "/stocked"), Bytes(root + "/stocked/"), Bytes(root + "//stocked"),
      Bytes(root + "/./stocked"), Bytes(root + "/cwd/../stocked"), "../stocked", "../stocked/.",
      Bytes(root + "/link"), Bytes(root + "/xdg/stash"), Bytes(root + "/synced"), "../synced",
    ]
  }

  /// Device folders in every state, spelled in several ways.
  static func homes(in sandbox: FuzzSandbox) -> [Bytes] {
    let root = sandbox.root
    return [
      Bytes(root + "/stocked"), Bytes(root + "/stocked/"), Bytes(root + "//stocked"),
      Bytes(root + "/./stocked"), Bytes(root + "/cwd/../stocked"), "../stocked", "../stocked/.",
      Bytes(root + "/synced"), Bytes(root + "/new-home"), Bytes(root + "/new/deeper/home"),
      Bytes(root + "/link"), Bytes(root + "/dangling"), Bytes(root + "/file"),
      Bytes(root + "/file/inner"), Bytes(root + "/loop1"), Bytes(root + "/loop1/inner"),
      Bytes(root + "/fifo-home"), Bytes(root + "/odd-store"), "a", "a/b", "a/", "./a", "ab",
      "a//b/./c/", "a/../b", ".", "..", "folder", "fifo", "photo.jpg",
      Bytes(root + "/" + String(repeating: "x", count: 300)),
      Bytes(root + String(repeating: "/deep", count: 900)),
      Bytes(root + "/h\u{1B}[2Jome"), Bytes(root + "/\u{202E}emoh"), Bytes(root + "/home\nnext"),
      Bytes(raw: Array((root + "/x").utf8) + [0xFF]), "\u{FEFF}", "-", "--",
    ]
  }

  /// Values of `STASH_NOW`: mostly the fixed test time, and every kind of bad value.
  static let clocks: [Bytes] = [
    "1764441600", "1764441600.25", "0", "-62135596800", "253402300799", "", "garbage", "1e20",
    "1e9", "nan", "inf", "-inf", "0x10", " 5", "5 ", "+5", "1.", ".5", "-", "253402300800",
    "-62135596801", "99999999999999999999999999", "1_000", "\u{661}", "5\u{1B}[31m",
    Bytes(raw: [0x31, 0xFF]),
  ]

  /// Whether `STASH_NOW` holds a time the tool must accept (the contract, written again
  /// independently of the product: plain digits, optional sign and fraction, years 1 to 9999;
  /// empty means the real clock).
  static func isUsableClock(_ value: Bytes?) -> Bool {
    guard let value else { return true }
    guard let text = value.text else { return false }
    if text.isEmpty { return true }
    let body = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
    let parts = body.split(separator: ".", omittingEmptySubsequences: false)
    guard (1...2).contains(parts.count),
      parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { (0x30...0x39).contains($0) } }),
      let seconds = Double(text)
    else { return false }
    return (-62_135_596_800...253_402_300_799).contains(seconds)
  }
}
