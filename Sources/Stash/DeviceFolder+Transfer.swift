import JSONLines
import LocalStore
public import StashBase
import StashFiles
public import StashModel

/// The formats `stash export` writes and `stash import` reads.
public enum TransferFormat: String, Hashable, Sendable, CaseIterable {
  /// A header line, then one line per item (RFC 4180 quoting); see ``DeviceFolder/csvColumns``.
  case csv
  /// One JSON object per line: `{"model", "id", "hash", "fields", "location"}`, `fields` as
  /// the store writes them and `location` the location's name (or `null`), and the photos'
  /// bytes in lines of their own (``TransferPhotos``).
  case jsonl
}

/// An item read from an export file, checked, and ready to add.
public struct ImportEntry: Hashable, Sendable {
  /// The line of the file it starts on.
  public let line: Int
  /// The item: the file's id when it had one, else a new id.
  public let item: Item
  /// The name of the location it was kept at, to find or create here.
  public let locationName: String?
}

/// An export file, read and checked in full before anything is written.
public struct ImportFile: Hashable, Sendable {
  /// The file.
  public let path: String
  /// Its items, in file order.
  public let entries: ImportEntries
  /// The photos the file carries (JSON lines), checked against their SHA-256 and size.
  public var photos: [SHA256Digest: [UInt8]] = [:]
}

/// What an import did.
public struct ImportReport: Hashable, Sendable {
  /// The ids of the items added, in file order (an item's id is the file's, or a new one for
  /// an id this folder deleted); the items are in the folder.
  ///
  /// Ids, not the items: a copy of every item added was the largest thing a 100,000-row
  /// import held beside the store (24 MB for a 48 MB store).
  public var added: [RecordID] = []
  /// Items whose id this folder already has (or that repeat an id earlier in the file): left
  /// alone, so importing a file twice adds nothing the second time.
  public var alreadyHere = 0
  /// Locations created because no location here had their name.
  public var locationsCreated: [Location] = []
  /// Items whose photo bytes are not in this folder: added without the photo.
  public var photosLeftOff = 0
}

extension DeviceFolder {
  /// The CSV columns, in order. Dates are ISO-8601 in UTC, exact to the bit
  /// (``CSV/text(of:)``; an import also reads the seconds since 1970 older exports wrote);
  /// `photo` is the photo's SHA-256 and `photoSize` its size in bytes.
  package static let csvColumns = [
    "id", "name", "brand", "quantity", "unit", "notes", "location", "lowStockThreshold",
    "barcode", "photo", "photoSize", "createdAt", "updatedAt",
  ]

  /// Every item as lines of `format` (CSV starts with its header), by name; JSON lines carry
  /// the photos too (``export(as:)`` also says which photos could not be exported).
  package func exportItems(as format: TransferFormat) -> [String] {
    export(as: format).lines
  }

  /// Every item as lines of `format` (CSV starts with its header), by name, each handed to
  /// `write` as soon as it is made: the items are read one at a time (``itemListing()``), so
  /// an export's memory does not follow the store. JSON lines carry the photos too, each
  /// before the first item that names it (``TransferPhotos``).
  ///
  /// - Parameter write: Takes each line, without its newline.
  /// - Returns: The items whose photo could not be exported (missing or damaged here): they
  ///   are exported without it.
  /// - Throws: ``StashError`` when the store must be read whole and cannot be.
  @discardableResult
  public func export(as format: TransferFormat, to write: (String) -> Void) throws(StashError)
    -> [Item]
  {
    let names = Dictionary(
      try everyLocation().map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
    let listing = try itemListing()
    var leftOut = [Item]()
    switch format {
    case .csv:
      write(CSV.line(Self.csvColumns))
      for item in listing {
        write(
          CSV.line([
            item.id.rawValue, item.name, item.brand ?? "", "\(item.quantity)", item.unit,
            item.notes, item.locationID.flatMap { names[$0] } ?? "",
            item.lowStockThreshold.map { "\($0)" } ?? "", item.barcode ?? "",
            item.photo?.digest.hex ?? "", item.photo.map { "\($0.size)" } ?? "",
            CSV.text(of: item.createdAt), CSV.text(of: item.updatedAt),
          ]))
      }
    case .jsonl:
      var written = Set<SHA256Digest>()
      for var item in listing {
        if let photo = item.photo, !written.contains(photo.digest) {
          if let bytes = try? blobs.read(photo) {
            for line in TransferPhotos.lines(bytes, ref: photo) { write(line) }
            written.insert(photo.digest)
          } else {
            leftOut.append(item)
            item.photo = nil
          }
        }
        write(Self.jsonLine(item, location: item.locationID.flatMap { names[$0] }))
      }
    }
    return leftOut
  }

  /// Reads and checks an export file in `format` (when `nil`: CSV when its name ends in
  /// `.csv` or its first line is the CSV header, else JSON lines). Nothing is written.
  ///
  /// - Parameters:
  ///   - path: The file: a regular file (a FIFO or a device is refused at once).
  ///   - format: The file's format, or `nil` to tell it from the name and first line.
  ///   - now: The creation time of items without one.
  /// - Returns: The checked items.
  /// - Throws: ``StashError`` (refused) naming the file and line of the first problem.
  public static func readImport(
    at path: String, format: TransferFormat? = nil, now: Timestamp
  ) throws(StashError) -> ImportFile {
    let bytes: [UInt8]
    do throws(InputFile.Problem) {
      bytes = try InputFile.read(
        path, fileSystem: POSIXFileSystem(), maximumBytes: TransferLimits.maximumFileBytes)
    } catch {
      if let size = error.tooLarge {
        throw .refused(
          "The file '\(path)' is \(size >> 20) MiB, more than the "
            + "\(TransferLimits.maximumFileBytes >> 20) MiB an import may be; split it")
      }
      throw .refused("Cannot read '\(path)': \(error.reason)")
    }
    try TransferLimits.checkLines(of: bytes, path: path)
    // The header compared as text (a combining mark after it makes another last character),
    // with a few bytes past it; a CSV file's bytes are checked as UTF-8 as they are read.
    let header = CSV.line(csvColumns)
    let isCSV =
      format.map { $0 == .csv }
      ?? (path.lowercased().hasSuffix(".csv")
        || String(decoding: bytes.prefix(header.utf8.count + 4), as: UTF8.self).hasPrefix(header))
    var photos = TransferPhotos.Collector()
    let entries: ImportEntries
    if isCSV {
      entries = try csvEntries(bytes, path: path, now: now)
    } else {
      guard let text = String(validating: bytes, as: UTF8.self) else { throw notUTF8(path) }
      entries = try jsonEntries(text, path: path, photos: &photos)
    }
    guard !entries.isEmpty else {
      throw StashError(
        .refused, "The file '\(path)' holds no items; export it again", hint: .export)
    }
    var file = ImportFile(path: path, entries: entries)
    file.photos = photos.complete
    return file
  }

  /// The items of `ids` as this folder holds them, in that order (one it does not hold is
  /// left out): what `import --json` prints of an import's ``ImportReport/added``.
  package func items(_ ids: [RecordID]) -> [Item] {
    guard let content else { return [] }
    return ids.compactMap { id in
      let key = RecordKey(model: InventorySchemas.item.model, id: id)
      guard let row = content.rowsByKey[key]?.first, let stored = content.rows[row] else {
        return nil
      }
      return try? Item(record: stored.record)
    }
  }

  /// Adds the items of a checked file in one transaction: all of them or, on failure, none.
  ///
  /// An item whose id this folder already has is left alone (so a second import of one file
  /// adds nothing); an id this folder deleted is imported under a new id. A location is found
  /// by name, or created. A photo the file carries is stored first; one whose bytes are
  /// neither in the file nor in this folder's blobs is left off (and counted in the report).
  ///
  /// The file is consumed: its entries are let go a block at a time as their records are
  /// made (``ImportEntries``), before they are written.
  ///
  /// - Parameter progress: Told after each entry how many of all are done (for a progress
  ///   line on a terminal).
  /// - Returns: What was added, skipped and created.
  /// - Throws: ``StashError`` when the save fails.
  public func importItems(
    _ file: consuming ImportFile, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
  ) throws(StashError) -> ImportReport {
    let now = clock()
    let path = file.path
    for entry in file.entries {
      guard let photo = entry.item.photo, let bytes = file.photos[photo.digest],
        blobs.check(photo) != .present
      else { continue }
      do { try blobs.store(bytes) } catch { throw StashError(error) }
    }
    var entries = (consume file).entries
    return try save("the import of '\(path)'") { content, transaction throws(StashError) in
      var report = ImportReport()
      // Room for every entry at once: grown by doubling, the report's ids were held with up
      // to half of their room unused.
      report.added.reserveCapacity(entries.count)
      var places = [String: RecordID]()
      for record in content.records(of: "location") {
        if case .string(let name)? = record[field: "name"], places[name.lowercased()] == nil {
          places[name.lowercased()] = record.id
        }
      }
      var spelled = [String: RecordID]()  // each location name met, as it is spelled
      // The ids seen and the changes made, each in room made once: grown by doubling, the
      // changes' list at its last doubling (its old and new storage both alive) was a 100,000-
      // row import's peak, with the entries and the records beside it.
      var seen = Set<RecordID>(minimumCapacity: entries.count)
      transaction.reserveCapacity(entries.count + Self.locationsMadeAtOnce)
      let total = entries.count
      var done = 0
      try entries.removeAll { entry throws(StashError) in
        done += 1
        defer { progress(done, total) }
        var item = entry.item
        // The key without building the item's record for it (twice, for each of 100,000 rows).
        let key = RecordKey(model: InventorySchemas.item.model, id: item.id)
        guard content.rowsByKey[key] == nil, seen.insert(item.id).inserted else {
          report.alreadyHere += 1
          return
        }
        if content.tombstones[key] != nil { item.id = self.newIdentifier() }
        if let name = entry.locationName {
          // A name met before is found as it is spelled, without lowercasing it again.
          if let id = spelled[name] {
            item.locationID = id
          } else if let id = places[name.lowercased()] {
            spelled[name] = id
            item.locationID = id
          } else {
            let location = Location(name: name, createdAt: now)
            try StashError.model(location.validate())
            try StashError.model(transaction.insert(location.record))
            places[name.lowercased()] = location.id
            spelled[name] = location.id
            report.locationsCreated.append(location)
            item.locationID = location.id
          }
        }
        if let photo = item.photo, blobs.check(photo) != .present {
          item.photo = nil
          report.photosLeftOff += 1
        }
        try StashError.model(transaction.insert(item.record))
        report.added.append(item.id)
      }
      return report
    }
  }

  /// The locations an import is expected to create, at most, in the room it makes for its
  /// changes at once (more only grow it).
  private static let locationsMadeAtOnce = 256

  // MARK: - Reading the two formats

  private static func jsonEntries(
    _ text: String, path: String, photos: inout TransferPhotos.Collector
  ) throws(StashError) -> ImportEntries {
    var entries = ImportEntries()
    for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false)
      .enumerated()
    where !line.allSatisfy(\.isWhitespace) {
      let number = offset + 1
      func refuse(_ reason: String) -> StashError {
        .refused("Line \(number) of '\(path)' \(reason); nothing was imported")
      }
      guard case .object(let object)? = try? JSONParser.parse(String(line)) else {
        throw refuse("is not a JSON object")
      }
      if object["photo"] != nil {
        if let reason = photos.add(object, line: number) { throw refuse(reason) }
        continue
      }
      guard object["model"] == nil || object["model"] == .string("item") else {
        throw refuse("is not an item")
      }
      guard case .object(let fields)? = object["fields"] else {
        throw refuse("has no 'fields' object")
      }
      var id = RecordID.make()
      if let value = object["id"] {
        guard case .string(let text) = value, let given = RecordID(normalizing: text) else {
          throw refuse("has an 'id' that is not a UUID")
        }
        id = given
      }
      var locationName: String?
      switch object["location"] {
      case .string(let name)?: locationName = name
      case nil, .null?: locationName = nil
      default: throw refuse("has a 'location' that is not a name")
      }
      let item: Item
      do {
        item = try Item(
          record: Record(schema: InventorySchemas.item, id: id, fieldsJSON: fields))
        try item.validate()
      } catch {
        throw refuse("is refused: \(error.message)")
      }
      entries.append(ImportEntry(line: number, item: item, locationName: locationName))
    }
    if let (line, hex) = photos.unfinished {
      throw .refused(
        "Line \(line) of '\(path)' starts photo '\(hex)', which the file does not finish; "
          + "nothing was imported")
    }
    return entries
  }
}

/// How large a file `stash import` reads.
public enum TransferLimits {
  /// The largest import file: 512 MiB (a million items of a few hundred bytes each). A larger
  /// file is refused before it is read.
  public static let maximumFileBytes: Int64 = 512 << 20
  /// The longest line of an import file: 1 MiB, the longest line a store may hold, so that a
  /// huge field is refused before it is parsed.
  public static let maximumLineBytes = LogLimits.maximumLineLength

  /// Refuses a file with a line over ``maximumLineBytes``.
  static func checkLines(of bytes: [UInt8], path: String) throws(StashError) {
    let longest = maximumLineBytes
    // The number of the line over the limit, if there is one.
    let found = bytes.withUnsafeBufferPointer { bytes -> Int? in
      var line = 1
      var start = 0
      for index in 0...bytes.count {
        guard index == bytes.count || bytes[index] == UInt8(ascii: "\n") else { continue }
        guard index - start <= longest else { return line }
        line += 1
        start = index + 1
      }
      return nil
    }
    if let found {
      throw .refused(
        "Line \(found) of '\(path)' is longer than the \(maximumLineBytes >> 20) MiB a line "
          + "may be; nothing was imported")
    }
  }
}
