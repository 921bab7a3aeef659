import StashBase

/// The model's own value types as `Codable`, so that a ``CodableRecord`` may hold them.
///
/// A record's coder stores them as their fields (a reference, a date, a counter); these
/// conformances are what any other coder (`JSONEncoder`, inside a nested value) sees.

extension RecordID: Codable {
  /// Reads the lowercase UUID text.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let id = RecordID(text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "'\(text)' is not a lowercase UUID")
    }
    self = id
  }

  /// Writes the lowercase UUID text.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(rawValue)
  }
}

extension Timestamp: Codable {
  /// Reads seconds since 1970, a finite number.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let seconds = try container.decode(Double.self)
    guard let time = Timestamp(secondsSince1970: seconds) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "A time must be a finite number of seconds")
    }
    self = time
  }

  /// Writes seconds since 1970.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(secondsSince1970)
  }
}

extension Counter: Codable {
  private enum CodingKeys: String, CodingKey {
    case epoch, base, p, n
  }

  /// Reads `{"epoch": UUID or absent, "base": n, "p": {device: units}, "n": {device: units}}`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let epochText = try container.decodeIfPresent(String.self, forKey: .epoch)
    let epoch = epochText.flatMap(CounterEpoch.init)
    if epochText != nil && epoch == nil {
      throw DecodingError.dataCorruptedError(
        forKey: .epoch, in: container, debugDescription: "An epoch is a lowercase UUID")
    }
    func tallies(_ key: CodingKeys) throws -> [DeviceID: Int64] {
      var found = [DeviceID: Int64]()
      for (text, units) in try container.decodeIfPresent([String: Int64].self, forKey: key) ?? [:] {
        guard let device = DeviceID(text), units > 0 else {
          throw DecodingError.dataCorruptedError(
            forKey: key, in: container, debugDescription: "A tally is a device id and units > 0")
        }
        found[device] = units
      }
      return found
    }
    self.init(
      base: try container.decode(Int64.self, forKey: .base), epoch: epoch,
      increments: try tallies(.p), decrements: try tallies(.n))
  }

  /// Writes the epoch (when not the first), the base and both tallies by device id.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encodeIfPresent(epoch?.rawValue, forKey: .epoch)
    try container.encode(base, forKey: .base)
    try container.encode(
      Dictionary(uniqueKeysWithValues: increments.map { ($0.key.rawValue, $0.value) }), forKey: .p)
    try container.encode(
      Dictionary(uniqueKeysWithValues: decrements.map { ($0.key.rawValue, $0.value) }), forKey: .n)
  }
}

extension BlobRef: Codable {
  private enum CodingKeys: String, CodingKey {
    case sha256, size
  }

  /// Reads `{"sha256": 64 hex digits, "size": n}`.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    let hex = try container.decode(String.self, forKey: .sha256)
    let size = try container.decode(Int64.self, forKey: .size)
    guard let digest = SHA256Digest(hex: hex), size >= 0 else {
      throw DecodingError.dataCorruptedError(
        forKey: .sha256, in: container, debugDescription: "A blob is a SHA-256 and a size")
    }
    self.init(digest: digest, size: size)
  }

  /// Writes `{"sha256": 64 hex digits, "size": n}`, as a store line does.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(digest.hex, forKey: .sha256)
    try container.encode(size, forKey: .size)
  }
}
