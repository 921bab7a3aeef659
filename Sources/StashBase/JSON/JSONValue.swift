/// One JSON value, as read by ``JSONParser`` and written by ``JSONWriter``.
///
/// Numbers keep the distinction the text made: a literal with no fraction and no exponent that
/// fits in `Int64` is ``integer(_:)``; every other number literal is ``double(_:)``, so that
/// `1` and `1.0` read back as they were written. `-0` is read as `.double(-0.0)` so that the
/// sign survives a round trip.
///
/// Equality and hashing are structural and order-sensitive for objects. Doubles compare with
/// `==`, so `.double(0.0) == .double(-0.0)`; compare `bitPattern`s where the sign matters.
public enum JSONValue: Hashable, Sendable {
  /// The literal `null`.
  ///
  /// Written as `null`.
  case null
  /// The literal `true` or `false`.
  ///
  /// Written as `true` or `false`.
  case bool(Bool)
  /// A number literal with no fraction and no exponent that fits in `Int64`.
  ///
  /// Written in decimal, so it reads back as an integer. Integer literals outside `Int64`'s
  /// range are read as ``double(_:)`` instead.
  case integer(Int64)
  /// Every other number literal, correctly rounded; always finite.
  ///
  /// Written in Swift's shortest round-trip form, which always has a `.` or an exponent and so
  /// reads back as a double with the same bit pattern, including the sign of zero. Writing a
  /// non-finite double is a programming error.
  case double(Double)
  /// A string, with its escapes decoded.
  ///
  /// Any `String` can be written; lone surrogates cannot occur in one and are rejected by the
  /// parser.
  case string(String)
  /// An array, in order.
  ///
  /// Elements may be any values, mixed freely.
  case array([JSONValue])
  /// An object, with its keys in the order they were written.
  ///
  /// See ``JSONObject`` for how duplicate keys are kept.
  case object(JSONObject)
}

/// An ordered JSON object: keys keep the order they were written or parsed in.
///
/// Lookup is by linear scan, because the objects Stash stores are small. Duplicate keys read
/// from the input are kept as they are and written back out unchanged; the subscript returns
/// the first. Two objects are equal when they hold the same pairs in the same order.
public struct JSONObject: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
  /// One key–value pair as it is stored.
  @usableFromInline
  struct Member: Hashable, Sendable {
    @usableFromInline var key: String
    @usableFromInline var value: JSONValue

    @inlinable
    init(key: String, value: JSONValue) {
      self.key = key
      self.value = value
    }
  }

  @usableFromInline var members: [Member]

  /// Creates an empty object.
  ///
  /// Use ``append(_:_:)`` or the subscript to add members.
  public init() {
    members = []
  }

  /// Creates an object holding the given pairs in the given order.
  ///
  /// Duplicate keys are kept as they are, exactly like duplicate keys read from JSON text.
  ///
  /// - Parameters:
  ///   - pairs: The key–value pairs, in the order they should be written.
  public init(_ pairs: [(String, JSONValue)]) {
    members = []
    members.reserveCapacity(pairs.count)
    for (key, value) in pairs {
      members.append(Member(key: key, value: value))
    }
  }

  /// Creates an object from a dictionary literal, keeping the literal's order.
  ///
  /// Duplicate keys in the literal are kept as they are.
  ///
  /// - Parameters:
  ///   - elements: The key–value pairs of the literal.
  public init(dictionaryLiteral elements: (String, JSONValue)...) {
    self.init(elements)
  }

  /// Wraps members the parser has already collected.
  init(members: [Member]) {
    self.members = members
  }

  /// The number of key–value pairs, counting duplicates.
  ///
  /// This is the number of members ``JSONWriter`` writes.
  public var count: Int { members.count }

  /// The keys in order, including any duplicates.
  ///
  /// Each call builds a new array; iterate the object itself to avoid that.
  public var keys: [String] { members.map(\.key) }

  /// The value of the first member named `key`.
  ///
  /// Setting a value replaces the first member with that key in place, or appends a new member
  /// at the end when there is none. Setting `nil` removes every member with that key, so that
  /// reading it afterwards gives `nil`.
  ///
  /// - Parameters:
  ///   - key: The member's name, compared by Unicode canonical equivalence like `String`'s `==`.
  /// - Returns: The first value stored under `key`, or `nil` when there is none.
  public subscript(key: String) -> JSONValue? {
    get {
      for member in members where member.key == key {
        return member.value
      }
      return nil
    }
    set {
      if let newValue {
        if let index = members.firstIndex(where: { $0.key == key }) {
          members[index].value = newValue
        } else {
          members.append(Member(key: key, value: newValue))
        }
      } else {
        members.removeAll { $0.key == key }
      }
    }
  }

  /// Appends a member at the end without looking for an existing one.
  ///
  /// This is the fast way to build an object whose keys are known to be distinct; appending a
  /// key that is already present makes a duplicate, which is written out as such.
  ///
  /// - Parameters:
  ///   - key: The member's name.
  ///   - value: The member's value.
  @inlinable
  public mutating func append(_ key: String, _ value: JSONValue) {
    members.append(Member(key: key, value: value))
  }

  /// Returns an iterator over the members in order.
  ///
  /// Duplicates are visited as they are stored.
  ///
  /// - Returns: An iterator producing `(key:value:)` pairs.
  public func makeIterator() -> Iterator {
    Iterator(members: members)
  }

  /// Iterates the members of a ``JSONObject`` in order.
  ///
  /// Produced by ``JSONObject/makeIterator()``.
  public struct Iterator: IteratorProtocol {
    private let members: [Member]
    private var index = 0

    init(members: [Member]) {
      self.members = members
    }

    /// Advances to the next member.
    ///
    /// Once it has returned `nil` it keeps returning `nil`.
    ///
    /// - Returns: The next key–value pair, or `nil` after the last one.
    public mutating func next() -> (key: String, value: JSONValue)? {
      guard index < members.count else { return nil }
      defer { index += 1 }
      let member = members[index]
      return (key: member.key, value: member.value)
    }
  }
}
