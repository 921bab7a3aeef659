import StashBase
import StashModel

extension DeviceFolder {
  /// The items of a CSV export, each checked as its row is read (see ``readImport(at:format:now:)``).
  ///
  /// Each row becomes its entry as soon as it is read (``CSV/forEachRecord(in:problem:_:)``):
  /// the rows' fields are never held beside the entries made of them.
  ///
  /// - Parameters:
  ///   - bytes: The file's bytes.
  ///   - path: The file, for messages.
  ///   - now: The creation time of items without one.
  /// - Throws: ``StashError`` (refused) naming the line of the first problem.
  static func csvEntries(_ bytes: [UInt8], path: String, now: Timestamp)
    throws(StashError) -> ImportEntries
  {
    var columns: CSVColumns?
    var entries = ImportEntries()
    try CSV.forEachRecord(in: bytes) { problem in
      problem.isNotUTF8
        ? notUTF8(path)
        : .refused("Line \(problem.line) of '\(path)' has \(problem.reason); nothing was imported")
    } _: { number, fields throws(StashError) in
      guard let columns else {
        guard fields.contains("name") else { throw noHeader(path) }
        columns = CSVColumns(header: fields)
        return
      }
      entries.append(try columns.entry(fields, line: number, path: path, now: now))
    }
    guard columns != nil else { throw noHeader(path) }
    return entries
  }

  /// The refusal of a file that is not UTF-8.
  static func notUTF8(_ path: String) -> StashError {
    StashError(.refused, "The file '\(path)' is not UTF-8 text; export it again", hint: .export)
  }

  private static func noHeader(_ path: String) -> StashError {
    StashError(
      .refused, "The file '\(path)' has no CSV header with a 'name' column; export it again",
      hint: .export)
  }
}

/// Where each column an import reads is in a CSV file's header.
///
/// Found once (the first of a repeated name, as a row's dictionary kept it): a dictionary
/// per row cost a tenth of a 100,000-row import in string hashing, and a look-up of each
/// column's name per row still cost a tenth of its parse.
private struct CSVColumns {
  /// The columns an import reads, in ``DeviceFolder/csvColumns`` order.
  enum Column: Int, CaseIterable {
    case id, name, brand, quantity, unit, notes, location, lowStockThreshold, barcode, photo
    case photoSize, createdAt, updatedAt

    /// Its name in the header.
    var name: String { DeviceFolder.csvColumns[rawValue] }
  }

  /// How many fields each row has.
  let count: Int
  /// Each column's position in a row, by ``Column/rawValue``; `nil` when the file lacks it.
  let positions: [Int?]

  init(header: [String]) {
    var found = [String: Int]()
    for (index, name) in header.enumerated() where found[name] == nil { found[name] = index }
    count = header.count
    positions = Column.allCases.map { found[$0.name] }
  }

  /// The entry of one row.
  func entry(_ fields: [String], line number: Int, path: String, now: Timestamp)
    throws(StashError) -> ImportEntry
  {
    func refuse(_ reason: String) -> StashError {
      .refused("Line \(number) of '\(path)' \(reason); nothing was imported")
    }
    guard fields.count == count else {
      throw refuse("has \(fields.count) fields, not \(count)")
    }
    func value(_ column: Column) -> String? { positions[column.rawValue].map { fields[$0] } }
    func text(_ column: Column) -> String? { value(column).flatMap { $0.isEmpty ? nil : $0 } }
    func integer(_ column: Column) throws(StashError) -> Int64? {
      guard let value = text(column) else { return nil }
      guard let number = Int64(value) else {
        throw refuse("has '\(value)' as \(column.name), not a whole number")
      }
      return number
    }
    func time(_ column: Column) throws(StashError) -> Timestamp? {
      guard let value = text(column) else { return nil }
      guard let time = CSV.timestamp(value) else {
        throw refuse(
          "has '\(value)' as \(column.name), not a time such as '2026-12-06T12:00:00Z' "
            + "(ISO-8601) or seconds since 1970")
      }
      return time
    }
    var id = RecordID.make()
    if let value = text(.id) {
      guard let given = RecordID(normalizing: value) else {
        throw refuse("has an id '\(value)' that is not a UUID")
      }
      id = given
    }
    var photo: BlobRef?
    if let hex = text(.photo) {
      guard let digest = SHA256Digest(hex: hex), let size = try integer(.photoSize), size >= 0
      else { throw refuse("has a photo '\(hex)' without a valid SHA-256 and size") }
      photo = BlobRef(digest: digest, size: size)
    }
    let created = try time(.createdAt) ?? now
    let item = Item(
      id: id, name: value(.name) ?? "", brand: text(.brand),
      quantity: try integer(.quantity) ?? 0, unit: value(.unit) ?? "",
      notes: value(.notes) ?? "", photo: photo,
      lowStockThreshold: try integer(.lowStockThreshold),
      barcode: text(.barcode), createdAt: created, updatedAt: try time(.updatedAt) ?? created)
    do { try item.validate() } catch { throw refuse("is refused: \(error.message)") }
    return ImportEntry(line: number, item: item, locationName: text(.location))
  }
}
