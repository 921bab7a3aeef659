public import StashBase
public import StashFiles
public import StashModel

/// The first line of a log: what kind of file it is and whose.
public struct LogHeader: Hashable, Sendable {
  /// The kind of file, such as `"stash.local"` or `"stash.mirror"`.
  public var format: String
  /// The format version that wrote the file.
  public var version: Int
  /// The store's identifier, made when the file was created.
  public var storeID: StoreID
  /// The device that created the file.
  public var deviceID: DeviceID
  /// When the file was created.
  public var created: Timestamp

  /// Describes a new log.
  public init(
    format: String, version: Int, storeID: StoreID, deviceID: DeviceID, created: Timestamp
  ) {
    self.format = format
    self.version = version
    self.storeID = storeID
    self.deviceID = deviceID
    self.created = created
  }

  /// The header's JSON object, as written after `"header":`.
  var json: JSONObject {
    [
      "format": .string(format),
      "version": .integer(Int64(version)),
      "store": .string(storeID.rawValue),
      "device": .string(deviceID.rawValue),
      "created": .double(created.secondsSince1970),
    ]
  }

  /// Reads a header object; `nil` when a field is missing or malformed.
  init?(json: JSONObject) {
    guard case .string(let format)? = json["format"],
      case .integer(let version)? = json["version"],
      case .string(let store)? = json["store"], let storeID = StoreID(store),
      case .string(let device)? = json["device"], let deviceID = DeviceID(device),
      let seconds = json["created"]?.exactDouble,
      let created = Timestamp(secondsSince1970: seconds)
    else { return nil }
    self.init(
      format: format, version: Int(version), storeID: storeID, deviceID: deviceID,
      created: created)
  }
}

/// One committed transaction, as the log hands it to its store.
public struct Transaction: Sendable {
  /// The transaction's number: 1 for the first after the header, then one more each time.
  public let sequence: Int64
  /// Its operations, in the order they were written.
  public let operations: [Operation]
}

/// One operation line of a committed transaction.
public struct Operation: Sendable {
  /// The line number in the file (the header is line 1), for error messages.
  public let line: Int
  /// The operation as the store wrote it.
  public let object: JSONObject
  /// Where the line is in the file (an index beside the store can point at it).
  public let span: LineSpan
}

/// Where one line of a log file is: its first byte and its length without the newline.
public struct LineSpan: Hashable, Sendable {
  /// The offset of the line's first byte in the file.
  public let offset: Int64
  /// The line's length in bytes, without its newline.
  public let length: Int
  /// The line number in the file (the header is line 1).
  public let line: Int

  /// A span.
  public init(offset: Int64, length: Int, line: Int) {
    self.offset = offset
    self.length = length
    self.line = line
  }
}

extension LogHeader {
  /// The header of the log at `path`, read from its first line alone (checksum-verified),
  /// without opening the log; `nil` when the file cannot be read or its first line is not a
  /// whole, valid header of at most 64 KiB.
  public static func read(atPath path: String, fileSystem: any FileSystem) -> LogHeader? {
    guard let descriptor = try? fileSystem.open(path, .readOnly, options: .nonBlocking) else {
      return nil
    }
    defer { fileSystem.close(descriptor) }
    guard let identity = try? fileSystem.identity(of: descriptor), identity.kind == .regular,
      let bytes = try? fileSystem.read(descriptor, count: 64 << 10, at: 0)
    else { return nil }
    return bytes.withUnsafeBytes { raw -> LogHeader? in
      guard let end = LineFraming.newline(in: raw, from: 0),
        case .success(let object) = LineFraming.decode(
          UnsafeRawBufferPointer(rebasing: raw[..<end])),
        case .object(let fields)? = object["header"]
      else { return nil }
      return LogHeader(json: fields)
    }
  }
}
