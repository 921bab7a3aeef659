public import StashBase
import StashFiles
public import StashModel

/// What `sync status` needs of every version of a mirror, which a focused open does not load:
/// the records whose versions are concurrent (several leaves), and the photos the versions
/// refer to. The mirror's index records it for its prefix (``MirrorIndex``, section 8.3 of
/// Fixtures/README.md); a focused content combines it with the records it loaded.
public struct MirrorSummary: Hashable, Sendable {
  /// The records with concurrent versions.
  public var concurrentKeys: Set<RecordKey> = []
  /// Every photo a version refers to, by digest.
  public var photos: [SHA256Digest: BlobRef] = [:]

  /// An empty summary.
  public init() {}

  /// The summary of every version `content` holds.
  init(of content: MirrorContent) {
    for position in 0..<content.versions.count where content.isConcurrent(atPosition: position) {
      concurrentKeys.insert(content.versions.keys[position])
    }
    photos = content.loadedPhotos
  }

  /// The summary's bytes: the concurrent records (a `UInt32` count, then model and id,
  /// `UInt8` length + bytes each, sorted), then the photos (a `UInt32` count, then each
  /// digest's 32 bytes and its size `Int64`, by digest); `nil` when a key does not fit.
  func encoded() -> [UInt8]? {
    var out = ByteWriter()
    out.integer(UInt32(concurrentKeys.count))
    for key in concurrentKeys.sorted() {
      let model = Array(key.model.utf8)
      let id = key.id.utf8Bytes
      guard model.count <= 255, id.count <= 255 else { return nil }
      out.bytes(model, width: 1)
      out.bytes(id, width: 1)
    }
    out.integer(UInt32(photos.count))
    for digest in photos.keys.sorted() {
      out.output += digest.bytes
      out.integer(photos[digest]!.size)
    }
    return out.output
  }

  /// The summary `raw` holds; `nil` when it does not fit.
  init?(decoding raw: UnsafeRawBufferPointer) {
    var reader = RawReader(raw)
    guard let keyCount: UInt32 = reader.integer(), Int(keyCount) <= raw.count / 2 else {
      return nil
    }
    for _ in 0..<keyCount {
      guard let model = reader.bytes(width: 1), let id = reader.bytes(width: 1),
        !model.isEmpty,
        let recordID = RecordID(String(decoding: id, as: UTF8.self))
      else { return nil }
      concurrentKeys.insert(
        RecordKey(model: String(decoding: model, as: UTF8.self), id: recordID))
    }
    guard let photoCount: UInt32 = reader.integer(), Int(photoCount) <= raw.count / 40 else {
      return nil
    }
    for _ in 0..<photoCount {
      guard let digest = reader.take(32).flatMap({ SHA256Digest(bytes: Array($0)) }),
        let size: Int64 = reader.integer()
      else { return nil }
      photos[digest] = BlobRef(digest: digest, size: size)
    }
    guard reader.isAtEnd else { return nil }
  }
}

extension MirrorContent {
  /// How many records have concurrent versions (several leaves) in the whole mirror:
  /// counted over a whole content; for a focused one, from `summary` (its index's, see
  /// ``MirrorStore/indexedSummary()``) for the records it did not load and from the versions
  /// of those it did.
  public func concurrentRecordCount(summary: MirrorSummary?) -> Int {
    guard !isComplete, let summary, let focused = focusedKeys else {
      return (0..<versions.count).count { isConcurrent(atPosition: $0) }
    }
    let outside = summary.concurrentKeys.filter { !focused.contains($0) }.count
    return outside + focused.filter { side(for: $0).isConcurrent }.count
  }

  /// Whether the record at `position` of ``versions`` shows concurrent versions
  /// (``MirrorSide/isConcurrent``). Its leaves are counted where they are held, so a record
  /// with one leaf (nearly every record) is answered without copying its versions out of the
  /// table: the walks over a whole mirror copied a million, a cache miss each.
  func isConcurrent(atPosition position: Int) -> Bool {
    guard versions.withValue(at: position, { $0.leafCount > 1 }) else { return false }
    return side(for: versions.keys[position]).isConcurrent
  }

  /// Every photo a version of the whole mirror refers to, by digest: those of the versions
  /// it holds, and for a focused content those `summary` recorded.
  public func photos(summary: MirrorSummary?) -> [SHA256Digest: BlobRef] {
    var refs = loadedPhotos
    if !isComplete, let summary {
      refs.merge(summary.photos) { loaded, _ in loaded }
    }
    return refs
  }
}
