import Foundation
import JSONLines
import MirrorStore
import StashBase
import StashModel
import StashTestSupport
import Testing

/// The photos a record or a mirror holds are found without a walk over every value of every
/// version (issue 26, item 5: a record's photos are read from the fields that may hold one,
/// and the mirror keeps its versions' photos as they arrive). They must be exactly what such
/// a walk finds.
@Suite struct PhotoWalkTests {
  static let device = DeviceID("00000000-0000-4000-8000-00000000b10b")!
  static let epoch = Timestamp(secondsSince1970: 1_764_441_600)!

  /// A model with photos in a required field and an optional one, between other fields.
  static let album = try! Schema(
    model: "album",
    fields: [
      FieldSpec("title", .string), FieldSpec("cover", .blob),
      FieldSpec("count", .counter), FieldSpec("back", .optional(.blob)),
      FieldSpec("note", .optional(.string)),
    ])

  static func photo(_ seed: Int) -> BlobRef { BlobRef(of: Array("photo \(seed)".utf8)) }

  /// Every value's photos, in field order: what the walks gave before.
  static func everyValuesPhotos(_ record: Record) -> [BlobRef] {
    record.values.compactMap { if case .blob(let blob) = $0 { blob } else { nil } }
  }

  @Test func aRecordsPhotosAreThoseOfEveryValue() throws {
    #expect(Self.album.blobIndices == [1, 3])
    #expect(InventorySchemas.item.blobIndices.count == 1)
    var random = SeededRandom(seed: 26)
    for index in 0..<200 {
      let back: FieldValue =
        Bool.random(using: &random) ? .blob(Self.photo(index + 1_000)) : .none
      let record = try Record(
        schema: Self.album, id: RecordID.make(),
        values: [
          .string("album \(index)"), .blob(Self.photo(index)), .counter(Counter(base: 1)), back,
          .string("note"),
        ])
      var found = [BlobRef]()
      record.forEachBlob { found.append($0) }
      #expect(found == Self.everyValuesPhotos(record))
    }
  }

  /// The photos of every version of every record, by digest: what a walk over them finds.
  static func walkedPhotos(_ content: MirrorContent) -> [SHA256Digest: BlobRef] {
    var refs = [SHA256Digest: BlobRef]()
    for key in content.keys {
      for version in content.versions[key]!.values {
        guard case .record(let record) = version.snapshot else { continue }
        for blob in everyValuesPhotos(record) { refs[blob.digest] = blob }
      }
    }
    return refs
  }

  /// The mirror keeps its photos as versions arrive (each walk over every version was a cache
  /// miss per record at a million): they must be those of every version it holds, after new
  /// versions, a known version arriving again, a tombstone, and when the file is read again.
  @Test func aMirrorsPhotosAreThoseOfEveryVersionItHolds() throws {
    try withTemporaryFolder { folder in
      let schemas = try SchemaRegistry([Self.album])
      let open = {
        try MirrorStore.open(
          folder: folder.path, schemas: schemas, lock: FolderLock(folder: folder.path),
          create: (Self.device, Self.epoch, nil))
      }
      let mirror = try open()
      #expect(mirror.content.photos(summary: nil).isEmpty)
      var random = SeededRandom(seed: 8)
      var written = [MirrorVersion]()
      for round in 0..<4 {
        try mirror.update { _, transaction in
          for index in 0..<25 {
            let back: FieldValue =
              Bool.random(using: &random) ? .blob(Self.photo(index % 7 + 100)) : .none
            let record = try Record(
              schema: Self.album, id: RecordID.make(),
              values: [
                .string("album \(round).\(index)"), .blob(Self.photo(round * 10 + index % 5)),
                .counter(Counter(base: 1)), back, .none,
              ])
            let version = MirrorVersion(
              snapshot: .record(record), parents: [], generation: 1, author: Self.device,
              authoredAt: Self.epoch)
            transaction.merge(version)
            written.append(version)
          }
          // A known version again, with a higher generation: merged, nothing new.
          let known = written[round]
          transaction.merge(
            MirrorVersion(
              snapshot: known.snapshot, parents: known.parents, generation: 5,
              author: Self.device, authoredAt: Self.epoch))
          // A tombstone over one of them: no photo.
          let gone = written[round * 3]
          guard case .record(let record) = gone.snapshot else { return }
          transaction.merge(
            MirrorVersion(
              snapshot: .tombstone(Tombstone(deleting: record, at: Self.epoch)),
              parents: [gone.id],
              generation: 2, author: Self.device, authoredAt: Self.epoch))
        }
        #expect(mirror.content.photos(summary: nil) == Self.walkedPhotos(mirror.content))
      }
      #expect(mirror.content.photos(summary: nil).count == 4 * 5 + 7)
      let reopened = try open()
      #expect(reopened.content.versionCount == mirror.content.versionCount)
      #expect(reopened.content.photos(summary: nil) == Self.walkedPhotos(reopened.content))
      #expect(reopened.content.photos(summary: nil) == mirror.content.photos(summary: nil))
    }
  }
}
