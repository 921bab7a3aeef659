import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The CSV `stash-bench targets` imports its stores from, as a person would: the columns
/// `stash export --format csv` writes, every item with an id, a location (one of 60, so the
/// import creates 60 location records) and notes of varied length, some quoted (commas,
/// quotes, a line break, a non-ASCII name). The same `count` always gives the same bytes
/// (a fixed seed, fixed times), so a store built twice is the same store.
enum BenchCSV {
  static let header =
    "id,name,brand,quantity,unit,notes,location,lowStockThreshold,barcode,photo,photoSize,"
    + "createdAt,updatedAt"

  static let rooms = ["Bathroom", "Kitchen", "Cellar", "Garage", "Hallway", "Salon", "Attic"]
  static let places = ["shelf", "cabinet", "drawer", "box", "rack", "cupboard", "crate", "bin"]
  static let units = ["tube", "bottle", "box", "pack", "can", "jar", "roll", "piece"]
  static let notes = [
    "", "Opened", "Keep away from sunlight", "Bought at the market, on sale",
    "Use before the \"best before\" date; the second one is for guests",
    "Refill from the large can in the garage, then rinse the nozzle and let it dry",
    "Colour 7/1 mixed 1:1 with developer 6%, 30 minutes; order the next one from Müller",
    "Two left\nin the back",
  ]

  /// Writes `count` items to `path`.
  static func write(count: Int, to path: String) throws {
    var random = SplitMix(seed: 26)
    var out = [UInt8]()
    out.reserveCapacity(count * 220)
    out += Array((header + "\n").utf8)
    for index in 0..<count {
      let id = uuid(&random)
      let place = index % 60
      let location = "\(rooms[place % 7]) \(places[place / 7 % 8]) \(place / 56 + 1)"
      let created = 1_767_225_600 + index * 37
      let fields = [
        id, "Product \(index)", index % 11 == 0 ? "" : "Brand \(index % 97)",
        "\(Int(random.next() % 40))", units[index % units.count],
        notes[Int(random.next() % UInt64(notes.count))], location,
        index % 3 == 0 ? "" : "\(2 + index % 4)", String(4_064_666_000_000 + index), "", "",
        iso(created), iso(created + Int(random.next() % 86_400)),
      ]
      out += Array(fields.map(quoted).joined(separator: ",").utf8)
      out.append(UInt8(ascii: "\n"))
    }
    try Data(out).write(to: URL(fileURLWithPath: path))
  }

  static func quoted(_ field: String) -> String {
    guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" }) else { return field }
    return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
  }

  static func uuid(_ random: inout SplitMix) -> String {
    let high = random.next()
    let low = random.next()
    let hex = String(high, radix: 16).leftPadded(16) + String(low, radix: 16).leftPadded(16)
    let digits = Array(hex)
    var text = ""
    for (offset, digit) in digits.enumerated() {
      if [8, 12, 16, 20].contains(offset) { text.append("-") }
      // Version 4, variant 10: what RecordID.make() writes.
      text.append(offset == 12 ? "4" : offset == 16 ? "8" : digit)
    }
    return text
  }

  /// `2026-01-01T00:10:17Z` for seconds since 1970.
  static func iso(_ seconds: Int) -> String {
    var time = time_t(seconds)
    var parts = tm()
    gmtime_r(&time, &parts)
    func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
    return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
      + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
  }
}

/// A small seeded generator (SplitMix64), so the benchmark's CSV is the same on every run.
struct SplitMix {
  var state: UInt64
  init(seed: UInt64) { state = seed }
  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}

extension String {
  fileprivate func leftPadded(_ width: Int) -> String {
    String(repeating: "0", count: max(0, width - count)) + self
  }
}
