/// What checking a device folder found: `stash doctor`'s report.
///
/// Findings are graded. **Damage** (a store that does not open or breaks its invariants, a
/// damaged last transaction, an unfinished change of identity, rows that cannot be trusted, a photo that is missing or does not match
/// its digest) makes ``isDamaged`` true, and the CLI exits with 4. **Warnings** (an
/// unfinished write after the last commit, damage set aside in a side file, duplicate ids,
/// records that do not read as their model) and **notes** (dangling references, open
/// conflicts, unfinished writes set aside) are things a person may want to look at; the
/// folder works with them.
public struct DoctorReport: Hashable, Sendable {
  /// How serious a finding is.
  public enum Severity: String, Hashable, Sendable, Comparable {
    /// Something is broken: a store or a photo.
    case damage
    /// Something odd that works: a dropped tail, duplicate ids.
    case warning
    /// Something to know: open conflicts, dangling references.
    case note

    private var rank: Int {
      switch self {
      case .damage: 0
      case .warning: 1
      case .note: 2
      }
    }

    public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs.rank < rhs.rank }
  }

  /// One thing the check found.
  public struct Finding: Hashable, Sendable {
    /// How serious it is.
    public let severity: Severity
    /// What it concerns: `local store`, `mirror`, `photos`, `duplicates`, `references`,
    /// `conflicts`, `sync`, `legacy`.
    public let area: String
    /// What was found and what to do, for a person.
    public let message: String
    /// What to do, for a tool to word as its own command (replacing the message's last
    /// clause), when the library knows one.
    public let hint: Hint?

    /// A finding.
    public init(_ severity: Severity, _ area: String, _ message: String, hint: Hint? = nil) {
      self.severity = severity
      self.area = area
      self.message = message
      self.hint = hint
    }
  }

  /// The device folder checked.
  public let home: String
  /// Whether the folder has an inventory (`default.store`) at all.
  public var hasInventory = false
  /// Whether the inventory opened.
  public var inventoryOpened = false
  /// Live items counted.
  public var items = 0
  /// Live locations counted.
  public var locations = 0
  /// Live reminders counted.
  public var reminders = 0
  /// Open conflicts.
  public var openConflicts = 0
  /// Photos (distinct blobs) referenced by rows, conflicts and mirror versions, and checked.
  public var photosChecked = 0
  /// The mirror's state in a word: `off` (sync is off: the entitlement in effect does not
  /// sync), `open`, `unavailable`, `absent`.
  public var mirror = "absent"
  /// Everything found, most serious first.
  public var findings: [Finding] = []
  /// What `stash doctor --repair` set aside, and where, before the folder was checked.
  public var repairs: [String] = []

  /// An empty report for `home`.
  public init(home: String) {
    self.home = home
  }

  /// Whether a store or a photo is damaged (the CLI then exits with 4).
  public var isDamaged: Bool { findings.contains { $0.severity == .damage } }

  mutating func add(
    _ severity: Severity, _ area: String, _ message: String, hint: Hint? = nil
  ) {
    findings.append(Finding(severity, area, message, hint: hint))
  }
}
