import Foundation
import JSONLines
import StashBase
import StashFiles
public import StashModel

/// An export's lines, and the items whose photo could not travel with them.
public struct TransferExport: Hashable, Sendable {
  /// The lines of the file, in order (without line ends).
  public var lines: [String]
  /// Items whose photo bytes are not in this folder (missing or damaged): exported without
  /// their photo, so that the file never names a photo it does not hold.
  public var photosLeftOut: [Item]
}

/// How photos travel in a JSON-lines export: before the first item that has it, a photo is a
/// run of lines `{"photo":"<SHA-256>","size":N,"offset":O,"data":"<base64>"}`, each at most
/// ``chunkBytes`` of it, in order from offset 0; an import checks the whole photo against its
/// SHA-256 and size before it stores it.
public enum TransferPhotos {
  /// The photo bytes one line carries (its base64 stays well under the 1 MiB a line may be).
  public static let chunkBytes = 512 << 10

  /// The lines that carry `bytes`, the photo `ref`.
  static func lines(_ bytes: [UInt8], ref: BlobRef) -> [String] {
    var lines = [String]()
    var offset = 0
    repeat {
      let end = min(offset + chunkBytes, bytes.count)
      lines.append(
        JSONWriter.string(
          .object([
            "photo": .string(ref.digest.hex), "size": .integer(ref.size),
            "offset": .integer(Int64(offset)),
            "data": .string(Data(bytes[offset..<end]).base64EncodedString()),
          ])))
      offset = end
    } while offset < bytes.count
    return lines
  }

  /// Photo parts read from an import file, put together and checked.
  struct Collector {
    private var parts = [SHA256Digest: (size: Int64, bytes: [UInt8], line: Int)]()
    /// The photos whose bytes are complete and match their SHA-256.
    private(set) var complete = [SHA256Digest: [UInt8]]()

    /// Adds one photo line.
    ///
    /// - Returns: Why the line is refused, or `nil`.
    mutating func add(_ object: JSONObject, line: Int) -> String? {
      guard case .string(let hex)? = object["photo"], let digest = SHA256Digest(hex: hex) else {
        return "has a 'photo' that is not a SHA-256"
      }
      guard case .integer(let size)? = object["size"], size >= 0,
        size <= CloudLimitsMirror.photoBytes
      else { return "has a photo 'size' that is not a size of at most 50 MiB" }
      guard case .integer(let offset)? = object["offset"],
        case .string(let text)? = object["data"], let data = Data(base64Encoded: text)
      else { return "has no photo 'offset' and base64 'data'" }
      if complete[digest] != nil { return offset == 0 ? nil : "repeats a part of a photo" }
      var part = parts[digest] ?? (size, [], line)
      guard part.size == size, offset == Int64(part.bytes.count) else {
        return "has a part of photo '\(hex)' out of order (offset \(offset))"
      }
      part.bytes += [UInt8](data)
      guard Int64(part.bytes.count) <= size else {
        return "has more bytes of photo '\(hex)' than its size \(size)"
      }
      if Int64(part.bytes.count) == size {
        guard SHA256.hash(part.bytes) == digest else {
          return "ends photo '\(hex)' with bytes that do not match its SHA-256"
        }
        complete[digest] = part.bytes
        parts[digest] = nil
      } else {
        parts[digest] = part
      }
      return nil
    }

    /// The line of a photo that was started and never finished, if any.
    var unfinished: (line: Int, hex: String)? {
      parts.min { $0.value.line < $1.value.line }.map { ($0.value.line, $0.key.hex) }
    }
  }
}

/// The photo size limit, as `CloudLimits` has it (the facade does not import `CloudFolder`).
enum CloudLimitsMirror {
  static let photoBytes: Int64 = 50 << 20
}

extension DeviceFolder {
  /// Every item as lines of `format`, by name, and the items whose photo could not be
  /// exported (see ``TransferPhotos`` for how JSON lines carry photos; CSV carries only their
  /// SHA-256 and size): ``export(as:to:)`` with the lines collected.
  public func export(as format: TransferFormat) -> TransferExport {
    var lines = [String]()
    // A folder read whole never throws here; one opened for a few records may have to read
    // the store whole, and then exports nothing when that fails.
    let leftOut = (try? export(as: format) { lines.append($0) }) ?? []
    return TransferExport(lines: lines, photosLeftOut: leftOut)
  }

  /// One item's JSON line: `{"model", "id", "hash", "fields", "location"}`.
  static func jsonLine(_ item: Item, location: String?) -> String {
    let record = item.record
    return JSONWriter.string(
      .object([
        "model": .string(record.model), "id": .string(record.id.rawValue),
        "hash": .string(record.snapshotHash.hex), "fields": .object(record.fieldsJSON()),
        "location": location.map { .string($0) } ?? .null,
      ]))
  }
}
