public import StashModel

/// A question about the live records of one model: conditions on its indexed fields,
/// an order and a limit, answered by ``SyncFolder/records(_:)`` from the local store's field
/// index in time that follows the answer, not the store.
///
/// ```swift
/// let rounds = try folder.all(
///   Round.self,
///   RecordQuery(Round.self).where("fight", equals: fight.id)
///     .sorted(by: "number").limited(to: 12))
/// ```
///
/// Every field a condition names must be declared `indexed` by the model's schema (or be a
/// reference with a delete rule); a query naming another field is refused, so that no query
/// quietly reads the whole store. The order may name any field; records that tie (and all of
/// them, without an order) come by id.
public struct RecordQuery: Sendable, Hashable {
  /// What a condition accepts.
  enum Condition: Sendable, Hashable {
    /// Exactly this value (``FieldValue/none`` for an empty optional).
    case equals(FieldValue)
    /// Between the bounds, inclusive; an absent bound is open. Empty optionals are outside.
    case between(FieldValue?, FieldValue?)
  }

  /// One condition on one field.
  struct Filter: Sendable, Hashable {
    let field: String
    let condition: Condition
  }

  /// The order of the answer.
  struct Order: Sendable, Hashable {
    let field: String
    let descending: Bool
  }

  /// The model asked about.
  public let model: String
  var filters: [Filter] = []
  var order: Order?
  var limit: Int?

  /// A query of every live record of `model`.
  public init(_ model: String) { self.model = model }

  /// A query of every live value of a type.
  public init<T: RecordRepresentable>(_ type: T.Type) { self.model = T.schema.model }

  /// The records whose `field` holds `value`.
  public func `where`(_ field: String, equals value: FieldValue) -> RecordQuery {
    var query = self
    query.filters.append(Filter(field: field, condition: .equals(value)))
    return query
  }

  /// The records whose `field` holds `value` (a `RecordID` for a reference, `nil` for an
  /// empty optional).
  public func `where`(_ field: String, equals value: some FieldConvertible) -> RecordQuery {
    self.where(field, equals: value.fieldValue)
  }

  /// The records whose `field` holds a value from `lower` through `upper`, inclusive.
  public func `where`<T: FieldConvertible>(_ field: String, from lower: T, through upper: T)
    -> RecordQuery
  {
    self.where(field, from: lower.fieldValue, through: upper.fieldValue)
  }

  /// The records whose `field` holds a value from `lower` through `upper` (either may be
  /// `nil`: no bound), compared as numbers, times, text (by Unicode scalars), ids or
  /// `false` before `true`.
  public func `where`(_ field: String, from lower: FieldValue?, through upper: FieldValue?)
    -> RecordQuery
  {
    var query = self
    query.filters.append(Filter(field: field, condition: .between(lower, upper)))
    return query
  }

  /// The records in the order of `field` (empty optionals first), ties by id.
  public func sorted(by field: String, descending: Bool = false) -> RecordQuery {
    var query = self
    query.order = Order(field: field, descending: descending)
    return query
  }

  /// At most `count` records (of the order's first ones).
  public func limited(to count: Int) -> RecordQuery {
    var query = self
    query.limit = max(0, count)
    return query
  }
}
