import StashModel

/// CSV dates: ISO-8601 in UTC, exact to the bit.
///
/// An export writes `2026-12-06T12:00:00Z`, with as many digits of a fraction of a second as
/// it takes to read back the very `Double` the store holds (`2026-12-06T12:00:00.25Z`), so a
/// round trip keeps every record's hash. An import reads that, an offset instead of `Z`
/// (`+01:00`), and the seconds since 1970 older exports wrote (`1764441600.0`).
extension CSV {
  /// The CSV text of a moment: ISO-8601 in UTC, or, outside the years 1 to 9999 (which no
  /// checked record holds), the seconds since 1970 that ``timestamp(_:)`` also reads.
  static func text(of time: Timestamp) -> String {
    let seconds = time.secondsSince1970
    let whole = seconds.rounded(.down)
    let fraction = seconds - whole
    guard let wholeSeconds = Int64(exactly: whole), fraction < 1,
      let civil = civilText(wholeSeconds)
    else { return "\(seconds)" }
    if fraction == 0 { return civil + "Z" }
    // The digits of the number's own shortest form when they apply, else the fraction's;
    // each is checked by reading it back.
    for digits in [shortFraction(of: seconds, whole: wholeSeconds), plainDigits(of: fraction)] {
      guard let digits else { continue }
      let text = civil + "." + digits + "Z"
      if timestamp(text) == time { return text }
    }
    return "\(seconds)"
  }

  /// The moment a CSV cell names: ISO-8601 (`Z` or an offset such as `+01:00`, any number of
  /// digits of a fraction of a second) or plain seconds since 1970; `nil` for anything else.
  static func timestamp(_ text: String) -> Timestamp? {
    if let time = isoTimestamp(text) { return time }
    let allowed = Set("0123456789.-+eE")
    guard !text.isEmpty, text.allSatisfy(allowed.contains), let seconds = Double(text) else {
      return nil
    }
    return Timestamp(secondsSince1970: seconds)
  }

  // MARK: - Reading

  private static func isoTimestamp(_ text: String) -> Timestamp? {
    // Read in place: an array of its bytes cost an allocation per cell, two per row.
    var text = text
    return text.withUTF8 { isoTimestamp(bytes: $0) }
  }

  private static func isoTimestamp(bytes: UnsafeBufferPointer<UInt8>) -> Timestamp? {
    guard bytes.count >= 20 else { return nil }
    func isDigit(_ index: Int) -> Bool { bytes[index] >= 0x30 && bytes[index] <= 0x39 }
    func number(_ start: Int, _ count: Int) -> Int64? {
      var value: Int64 = 0
      for index in start..<start + count {
        guard isDigit(index) else { return nil }
        value = value * 10 + Int64(bytes[index] - 0x30)
      }
      return value
    }
    func byte(_ index: Int, _ character: Unicode.Scalar) -> Bool {
      bytes[index] == UInt8(ascii: character)
    }
    guard let year = number(0, 4), byte(4, "-"), let month = number(5, 2), byte(7, "-"),
      let day = number(8, 2), byte(10, "T"), let hour = number(11, 2), byte(13, ":"),
      let minute = number(14, 2), byte(16, ":"), let second = number(17, 2),
      year >= 1, (1...12).contains(month), day >= 1, day <= days(inMonth: month, of: year),
      hour < 24, minute < 60, second < 60
    else { return nil }
    var index = 19
    var fraction = 0.0
    if byte(index, ".") {
      let start = index + 1
      index = start
      while index < bytes.count && isDigit(index) { index += 1 }
      guard index > start,
        let value = Double("0." + String(decoding: bytes[start..<index], as: UTF8.self))
      else { return nil }
      fraction = value
    }
    guard index < bytes.count else { return nil }
    var offset: Int64 = 0
    if byte(index, "Z") && index + 1 == bytes.count {
      offset = 0
    } else if byte(index, "+") || byte(index, "-"), index + 6 == bytes.count, byte(index + 3, ":"),
      let hours = number(index + 1, 2), let minutes = number(index + 4, 2), hours < 24,
      minutes < 60
    {
      offset = (hours * 60 + minutes) * 60 * (byte(index, "-") ? -1 : 1)
    } else {
      return nil
    }
    let whole =
      daysSince1970(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60
      + second - offset
    let seconds = Double(whole) + fraction
    guard (Limits.earliestDate...Limits.latestDate + 1).contains(seconds) else { return nil }
    return Timestamp(secondsSince1970: seconds)
  }

  private static func days(inMonth month: Int64, of year: Int64) -> Int64 {
    let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    return [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][Int(month) - 1]
  }

  /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (Howard Hinnant's
  /// `days_from_civil`).
  private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  // MARK: - Writing

  /// `YYYY-MM-DDTHH:MM:SS` for whole seconds since 1970, or `nil` outside the years 1 to 9999
  /// (Hinnant's `civil_from_days`).
  private static func civilText(_ seconds: Int64) -> String? {
    let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
    let inDay = seconds - days * 86_400
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra =
      (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shifted = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * shifted + 2) / 5 + 1
    let month = shifted < 10 ? shifted + 3 : shifted - 9
    let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    guard (1...9999).contains(year) else { return nil }
    func padded(_ value: Int64, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2) + "T"
      + padded(inDay / 3_600, 2) + ":" + padded(inDay / 60 % 60, 2) + ":"
      + padded(inDay % 60, 2)
  }

  /// The digits after the point of `seconds`' shortest form, when that form is plain decimal
  /// with `whole` before the point (`1764441600.25` gives `25`).
  private static func shortFraction(of seconds: Double, whole: Int64) -> String? {
    let text = "\(seconds)"
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[0] == String(whole), parts[1].allSatisfy(\.isNumber) else {
      return nil
    }
    let digits = String(parts[1].reversed().drop { $0 == "0" }.reversed())
    return digits.isEmpty ? nil : digits
  }

  /// The digits after the point of a fraction in (0, 1), from its shortest form, written out
  /// in plain decimal (`1e-05` gives `00001`).
  private static func plainDigits(of fraction: Double) -> String? {
    let text = "\(fraction)"
    if text.hasPrefix("0.") { return String(text.dropFirst(2)) }
    let parts = text.split(separator: "e")
    guard parts.count == 2, let exponent = Int(parts[1]), exponent < 0 else { return nil }
    let mantissa = parts[0].filter { $0 != "." }
    return String(repeating: "0", count: -exponent - 1) + mantissa
  }
}
