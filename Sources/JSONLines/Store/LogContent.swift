public import StashBase
public import StashModel

/// The in-memory state a store rebuilds from its log, and the changes that build it.
///
/// A store has one vocabulary of changes: a save turns them into operation lines, and opening
/// replays the lines through the same ``apply(_:)``. Keeping one path for both is what makes
/// the memory after a save equal to the memory after a reopen.
public protocol LogContent: Sendable {
  /// One change, as one operation line says it.
  associatedtype Change: Sendable
  /// What decoding needs besides the line (for example the schema registry).
  associatedtype Context: Sendable

  /// The header's `format`, such as `"stash.local"`.
  static var format: String { get }
  /// The newest format version this code reads and writes.
  static var version: Int { get }

  /// The empty content of a log with this header.
  init(header: LogHeader, context: Context)

  /// Applies one committed change. Must not fail: every change that can be written can be
  /// applied.
  mutating func apply(_ change: Change)

  /// Reads one operation line.
  ///
  /// The result may depend on the content's context (its schemas) only, never on what was
  /// applied: a transaction's operations are decoded together, on every core, before the
  /// first is applied.
  ///
  /// - Throws: ``ModelError`` saying what is wrong; the store reports it with the line number.
  func change(from operation: JSONObject) throws(ModelError) -> Change

  /// Reads one operation line, knowing its line number (a content that sets damaged lines
  /// aside, rather than refusing the file, keeps it to name them). By default, the same as
  /// ``change(from:)``.
  ///
  /// - Throws: ``ModelError`` saying what is wrong; the store reports it with the line number.
  func change(from operation: JSONObject, line: Int) throws(ModelError) -> Change

  /// Reads one operation straight from its bytes (the line's `op` object), when it has the
  /// exact form this content's writer gives its hot changes (one per record: a row, a
  /// version), without parsing a JSON tree (issue 26, item 5). Answers `nil` for anything
  /// else, and the line is then parsed and read by ``change(from:line:)``; where it answers,
  /// the change must be the one ``change(from:line:)`` reads from the same bytes. By default,
  /// `nil`.
  func change(fromBytes operation: UnsafeRawBufferPointer, line: Int) -> Change?

  /// The operation line of a change.
  static func operation(for change: Change) -> JSONObject

  /// Appends the JSON text of ``operation(for:)`` (what the line holds). By default, the
  /// tree's text; a content that writes a change's text without building its tree (a hot
  /// change, written once per record in a sync) gives the same bytes.
  static func appendOperation(for change: Change, to bytes: inout [UInt8])

  /// The changes that rebuild exactly this content (what compaction writes).
  var changesForCompaction: [Change] { get }

  /// How many changes compaction would write: the store compacts when the file holds many
  /// more lines than this.
  var liveChangeCount: Int { get }

  /// Applies one committed change, knowing where its line is in the file (for an index). By
  /// default, the same as ``apply(_:)``.
  mutating func apply(_ change: Change, at span: LineSpan)

  /// Forgets where lines are (the file was rewritten by a compaction). By default, nothing.
  mutating func forgetLineSpans()

  /// Makes room for `changes`, a saved transaction about to be applied one by one: a large
  /// one then grows each table once, instead of by doubling (while a table grows, its old
  /// and new storage are both alive). By default, nothing.
  mutating func reserveCapacity(forApplying changes: [Change])

  /// Whether this is the whole content of the file (`false` for a content built from an
  /// index for a few records): only a whole content may be compacted or upgraded. By
  /// default, `true`.
  var isComplete: Bool { get }

  /// Whether a content that is not complete met a change it cannot apply exactly (another
  /// process wrote about a record it did not load): catching up then reads the whole file.
  /// By default, `false`.
  var needsWholeRead: Bool { get }
}

extension LogContent {
  public mutating func apply(_ change: Change, at span: LineSpan) { apply(change) }

  public static func appendOperation(for change: Change, to bytes: inout [UInt8]) {
    JSONWriter.write(.object(operation(for: change)), into: &bytes)
  }

  public mutating func forgetLineSpans() {}

  public mutating func reserveCapacity(forApplying changes: [Change]) {}

  public var isComplete: Bool { true }

  public var needsWholeRead: Bool { false }

  public func change(from operation: JSONObject, line: Int) throws(ModelError) -> Change {
    try change(from: operation)
  }

  public func change(fromBytes operation: UnsafeRawBufferPointer, line: Int) -> Change? { nil }
}
