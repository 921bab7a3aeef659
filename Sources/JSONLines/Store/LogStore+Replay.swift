public import StashBase
public import StashModel

/// One transaction replayed while its lines are read: its operations are decoded into changes
/// a batch at a time (each batch on every core) as the scan hands them out, and applied in
/// order when its commit line is read.
///
/// A parsed line is a generic JSON tree, several times the line's size, and a transaction can
/// hold the whole store (an import, a compaction): gathered whole before decoding, its trees
/// were most of the peak memory of any command that reads a store. Here at most one batch of
/// them is alive; the decoded changes share their storage with what the content keeps.
///
/// Decoding depends on the content's context only (``LogContent/change(from:line:)``), so the
/// content passed as the decoder may be the one being built; it is held only while a batch
/// is decoded, never while changes are applied (which would copy the content).
///
/// Inlinable, as are the opens that use it (``LogStore/load(path:context:recover:fileSystem:)``
/// and the resumed open): compiled in each store's module for its own content, it handles a
/// line without asking the runtime for the metadata of its generic types (`Optional`, `Result`,
/// `Array` of the content's change, about 500 instructions each, several times a line) or
/// copying the content through its value witness: 18% of what `show` cost on a store with a
/// few hundred lines after its index.
@usableFromInline
struct StreamedReplay<Content: LogContent> {
  /// How many parsed lines are decoded together: enough for every core to take a chunk.
  @inlinable static var batchSize: Int { max(2048, 1024 * Parallel.processorCount) }

  /// One decoded change and where its line is.
  @usableFromInline typealias Decoded = (change: Result<Content.Change, ModelError>, span: LineSpan)
  /// The batch being gathered, in line order: the changes read straight from their bytes
  /// (``LogContent/change(fromBytes:line:)``), and a placeholder for each parsed line, which
  /// ``decodeParsed(with:)`` replaces with its change.
  @usableFromInline var current: [Decoded] = []
  /// The parsed lines of ``current`` not decoded yet, and their places in it.
  @usableFromInline var parsed: [(index: Int, operation: Operation)] = []
  /// The transaction's changes so far, in line order, a batch per array: each batch is freed
  /// as soon as it is applied, so a transaction as large as the store is never held whole
  /// beside the content it builds.
  @usableFromInline var decoded: [[Decoded]] = []

  /// Nothing read yet.
  @inlinable init() {}

  /// Takes one operation line of the transaction being read (it may never commit).
  @inlinable mutating func add(_ operation: Operation, decoder: Content) {
    parsed.append((current.count, operation))
    current.append((.failure(notDecodedYet), operation.span))
    if current.count >= Self.batchSize { finishBatch(with: decoder) }
  }

  /// Takes one operation of the transaction being read that was read straight from its
  /// bytes (it may never commit).
  @inlinable mutating func add(_ change: Content.Change, at span: LineSpan, decoder: Content) {
    current.append((.success(change), span))
    if current.count >= Self.batchSize { finishBatch(with: decoder) }
  }

  /// Reads the operation at `bytes` straight from them and takes it, when the content can
  /// (``LogContent/change(fromBytes:line:)``); `false` when the line must be parsed.
  @inlinable mutating func addDirect(
    _ bytes: UnsafeRawBufferPointer, at span: LineSpan, decoder: Content
  ) -> Bool {
    guard let change = decoder.change(fromBytes: bytes, line: span.line) else { return false }
    add(change, at: span, decoder: decoder)
    return true
  }

  /// Applies the transaction read since the last commit to `content`, in order: the first
  /// operation that does not decode stops it, naming its line (as the file is then damaged).
  ///
  /// - Throws: ``LogError/damaged(path:line:reason:)``.
  @inlinable mutating func commit(into content: inout Content, path: String) throws(LogError) {
    var transaction = take(decoder: content)
    try transaction.apply(to: &content, path: path)
  }

  /// The transaction read since the last commit, decoded and not applied (see
  /// ``DecodedTransaction``); the next one starts empty.
  @inlinable mutating func take(decoder: Content) -> DecodedTransaction<Content> {
    finishBatch(with: decoder)
    var batches: [[Decoded]] = []
    swap(&batches, &decoded)
    return DecodedTransaction(batches: batches)
  }

  /// Decodes the batch's parsed lines (on every core) and sets the batch aside.
  @inlinable mutating func finishBatch(with decoder: Content) {
    guard !current.isEmpty else { return }
    decodeParsed(with: decoder)
    decoded.append(current)
    current = []
  }

  @inlinable mutating func decodeParsed(with decoder: Content) {
    guard !parsed.isEmpty else { return }
    let operations = parsed
    parsed.removeAll(keepingCapacity: true)
    let changes = Parallel.map(count: operations.count) { index in
      Result { () throws(ModelError) in
        try decoder.change(
          from: operations[index].operation.object, line: operations[index].operation.line)
      }
    }
    for (change, entry) in zip(changes, operations) { current[entry.index].change = change }
  }
}

/// One committed transaction's operations, decoded (``StreamedReplay/take(decoder:)``): what a
/// resumed open reads of the file after its prefix before the content they apply to is built
/// (``LogStore/open(path:resuming:lock:context:access:compaction:fileSystem:content:)``).
@usableFromInline
struct DecodedTransaction<Content: LogContent> {
  @usableFromInline var batches: [[(change: Result<Content.Change, ModelError>, span: LineSpan)]]

  @inlinable init(batches: [[(change: Result<Content.Change, ModelError>, span: LineSpan)]]) {
    self.batches = batches
  }

  /// How many operations it has.
  @inlinable var count: Int { batches.reduce(0) { $0 + $1.count } }

  /// The operations that decoded, in order (one that did not stops ``apply(to:path:)``).
  @inlinable var changes: [Content.Change] {
    batches.flatMap { $0.compactMap { try? $0.change.get() } }
  }

  /// Applies the operations to `content` in order, letting each batch go once applied: the
  /// first that does not decode stops it, naming its line (the file is then damaged).
  ///
  /// - Throws: ``LogError/damaged(path:line:reason:)``.
  @inlinable mutating func apply(to content: inout Content, path: String) throws(LogError) {
    var batches: [[(change: Result<Content.Change, ModelError>, span: LineSpan)]] = []
    swap(&batches, &self.batches)
    for index in batches.indices {
      let batch = batches[index]
      batches[index] = []  // the batch's last reference is `batch`: freed once it is applied
      for (change, span) in batch {
        switch change {
        case .success(let change): content.apply(change, at: span)
        case .failure(let error):
          throw .damaged(path: path, line: span.line, reason: error.message)
        }
      }
    }
  }
}

/// What a parsed line's place in a batch holds until it is decoded.
@usableFromInline let notDecodedYet = ModelError("not decoded yet")
