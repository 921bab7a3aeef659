// Number literals: the grammar is checked here byte by byte; integers that fit in Int64, and
// decimals of up to 19 significant digits with an exponent of at most 27 in magnitude, are
// converted exactly on the spot; everything else by the standard library's correctly rounded
// `Double(_:)`.

extension JSONScanner {
  /// Reads a number literal starting at `index` (a `-` or a digit).
  mutating func parseNumber() throws(JSONError) -> JSONValue {
    let start = index
    var i = index
    let negative = byte(i) == UInt8(ascii: "-")
    if negative {
      i += 1
    }
    guard i < end else { throw endOfInput }

    // Up to 19 significant digits are kept in `mantissa`; `exponent` is the power of ten it is
    // scaled by. `exact` becomes false when digits beyond the 19th significant one are dropped.
    var mantissa: UInt64 = 0
    var significant = 0
    var exponent = 0
    var exact = true
    var isInteger = true

    let first = byte(i)
    if first == UInt8(ascii: "0") {
      i += 1
      if i < end && byte(i) &- UInt8(ascii: "0") < 10 {
        throw JSONError(offset: i, reason: "Leading zeros are not allowed in numbers")
      }
    } else if first &- UInt8(ascii: "0") < 10 {
      while i < end {
        let digit = byte(i) &- UInt8(ascii: "0")
        guard digit < 10 else { break }
        if significant < 19 {
          mantissa = mantissa &* 10 &+ UInt64(digit)
          significant += 1
        } else {
          exact = false
          exponent += 1
        }
        i += 1
      }
    } else {
      throw JSONError(offset: i, reason: "Expected a digit after '-'")
    }

    if i < end && byte(i) == UInt8(ascii: ".") {
      isInteger = false
      i += 1
      guard i < end else { throw endOfInput }
      guard byte(i) &- UInt8(ascii: "0") < 10 else {
        throw JSONError(offset: i, reason: "Expected a digit after the decimal point")
      }
      while i < end {
        let digit = byte(i) &- UInt8(ascii: "0")
        guard digit < 10 else { break }
        if significant < 19 {
          mantissa = mantissa &* 10 &+ UInt64(digit)
          if mantissa != 0 {
            significant += 1
          }
          exponent -= 1
        } else {
          exact = false
        }
        i += 1
      }
    }

    if i < end && byte(i) | 0x20 == UInt8(ascii: "e") {
      isInteger = false
      i += 1
      guard i < end else { throw endOfInput }
      var exponentIsNegative = false
      if byte(i) == UInt8(ascii: "+") || byte(i) == UInt8(ascii: "-") {
        exponentIsNegative = byte(i) == UInt8(ascii: "-")
        i += 1
        guard i < end else { throw endOfInput }
      }
      guard byte(i) &- UInt8(ascii: "0") < 10 else {
        throw JSONError(offset: i, reason: "Expected a digit in the exponent")
      }
      var written = 0
      while i < end {
        let digit = byte(i) &- UInt8(ascii: "0")
        guard digit < 10 else { break }
        if written < 1_000_000 {
          written = written * 10 + Int(digit)
        }
        i += 1
      }
      exponent += exponentIsNegative ? -written : written
    }
    index = i

    if isInteger && exact {
      if !negative && mantissa <= UInt64(Int64.max) {
        return .integer(Int64(mantissa))
      }
      if negative && mantissa != 0 && mantissa <= UInt64(Int64.max) + 1 {
        return .integer(Int64(bitPattern: 0 &- mantissa))
      }
    }
    if mantissa == 0 {
      return .double(negative ? -0.0 : 0.0)
    }
    if exact, let value = Self.fastDouble(mantissa: mantissa, exponent: exponent) {
      return .double(negative ? -value : value)
    }
    return .double(try slowDouble(start: start))
  }

  /// The correctly rounded value of `mantissa × 10^exponent` (`mantissa` nonzero) when one
  /// of the exact methods applies, else `nil`.
  ///
  /// Clinger's fast path covers a mantissa of at most 2^53 with |exponent| ≤ 22: both operands
  /// are exact doubles, so one correctly rounded multiplication or division gives the answer.
  /// Longer mantissas, such as the 17 significant digits of a full-precision timestamp, with
  /// |exponent| ≤ 27 are computed exactly in 128-bit integers and rounded once.
  @inline(__always)
  static func fastDouble(mantissa: UInt64, exponent: Int) -> Double? {
    if mantissa <= 1 << 53 && exponent >= -22 && exponent <= 22 {
      let value = Double(mantissa)
      return exponent < 0 ? value / powerOfTen(-exponent) : value * powerOfTen(exponent)
    }
    guard exponent >= -27 && exponent <= 27 else { return nil }
    if exponent >= 0 {
      // mantissa × 5^e < 2^64 × 2^63 is exact; the factor 2^e goes into the binary exponent.
      let product = UInt128(mantissa) * UInt128(powerOfFive(exponent))
      return rounded(product, sticky: false, binaryExponent: exponent)
    }
    // mantissa / 10^k = (mantissa × 2^s / 5^k) × 2^-(s+k). With the mantissa shifted to the top
    // of 128 bits and 5^k < 2^63, the quotient keeps more than 64 significant bits; the
    // remainder only decides ties.
    let k = -exponent
    let shift = 64 + mantissa.leadingZeroBitCount
    let (quotient, remainder) = (UInt128(mantissa) << shift).quotientAndRemainder(
      dividingBy: UInt128(powerOfFive(k)))
    return rounded(quotient, sticky: remainder != 0, binaryExponent: -shift - k)
  }

  /// `value × 2^binaryExponent` rounded to the nearest double, ties to even, where `sticky`
  /// says that the exact value is a little more than `value`. The result must be normal.
  @inline(__always)
  static func rounded(_ value: UInt128, sticky: Bool, binaryExponent: Int) -> Double {
    let bits = 128 - value.leadingZeroBitCount
    guard bits > 53 else {
      // Only reached without a remainder: the value is exact.
      return Double(sign: .plus, exponent: binaryExponent, significand: Double(UInt64(value)))
    }
    let dropped = bits - 53
    var significand = UInt64(truncatingIfNeeded: value >> dropped)
    let rest = value & ((1 << dropped) - 1)
    let half = UInt128(1) << (dropped - 1)
    if rest > half || (rest == half && (sticky || significand & 1 == 1)) {
      significand += 1  // may reach 2^53, which is still exact
    }
    return Double(
      sign: .plus, exponent: binaryExponent + dropped, significand: Double(significand))
  }

  /// 5^n for 0 ≤ n ≤ 27, every one below 2^63.
  @inline(__always)
  static func powerOfFive(_ n: Int) -> UInt64 {
    switch n {
    case 0: 1
    case 1: 5
    case 2: 25
    case 3: 125
    case 4: 625
    case 5: 3_125
    case 6: 15_625
    case 7: 78_125
    case 8: 390_625
    case 9: 1_953_125
    case 10: 9_765_625
    case 11: 48_828_125
    case 12: 244_140_625
    case 13: 1_220_703_125
    case 14: 6_103_515_625
    case 15: 30_517_578_125
    case 16: 152_587_890_625
    case 17: 762_939_453_125
    case 18: 3_814_697_265_625
    case 19: 19_073_486_328_125
    case 20: 95_367_431_640_625
    case 21: 476_837_158_203_125
    case 22: 2_384_185_791_015_625
    case 23: 11_920_928_955_078_125
    case 24: 59_604_644_775_390_625
    case 25: 298_023_223_876_953_125
    case 26: 1_490_116_119_384_765_625
    default: 7_450_580_596_923_828_125
    }
  }

  /// 10^n for 0 ≤ n ≤ 22, every one exactly representable.
  @inline(__always)
  static func powerOfTen(_ n: Int) -> Double {
    switch n {
    case 0: 1e0
    case 1: 1e1
    case 2: 1e2
    case 3: 1e3
    case 4: 1e4
    case 5: 1e5
    case 6: 1e6
    case 7: 1e7
    case 8: 1e8
    case 9: 1e9
    case 10: 1e10
    case 11: 1e11
    case 12: 1e12
    case 13: 1e13
    case 14: 1e14
    case 15: 1e15
    case 16: 1e16
    case 17: 1e17
    case 18: 1e18
    case 19: 1e19
    case 20: 1e20
    case 21: 1e21
    default: 1e22
    }
  }

  /// Converts the already validated literal from `start` to `index` with the standard
  /// library's correctly rounded parser, rejecting values beyond `Double`'s range.
  func slowDouble(start: Int) throws(JSONError) -> Double {
    let text = String(
      decoding: UnsafeRawBufferPointer(start: base + start, count: index - start), as: UTF8.self)
    guard let value = Double(text), value.isFinite else {
      throw JSONError(offset: start, reason: "Number is out of the range of Double")
    }
    return value
  }
}
