/// The sync entitlement saved from the last verified purchase.
///
/// Only a yearly subscription opens the mirror. A one-time unlock keeps editing on this device
/// and does not sync; an active trial does not sync either. A change takes effect the next
/// time the device folder is opened (the process reads the saved value at launch).
public enum Entitlement: String, Hashable, Sendable, CaseIterable {
  /// Nothing bought.
  case none
  /// A one-time unlock: editing on this device, no sync.
  case oneTimeUnlock = "one-time-unlock"
  /// A trial: no sync.
  case trial
  /// A yearly subscription: sync.
  case yearlySubscription = "yearly-subscription"

  /// Whether this entitlement opens the mirror.
  public var opensMirror: Bool { self == .yearlySubscription }
}

/// This device's own settings, kept in the local store and never synced.
public struct DeviceSettings: Hashable, Sendable {
  /// A person-readable name for this device (default: ``defaultName(host:device:)``).
  public var name: String
  /// The saved entitlement; the mirror opens at launch only for a subscription.
  public var entitlement: Entitlement
  /// The shared folder the transport uses, once sync has been set up.
  public var cloudFolder: String?
  /// The one-time steps done on this device (a duplicate repair of a version, a legacy
  /// import), by name, so that none runs twice.
  public var stepsDone: Set<String>
  /// Where the device folder was when this device last wrote to it: a folder found elsewhere
  /// (copied, or restored from a backup) is another incarnation of the device, which takes a
  /// device identity of its own before its first write. `nil` in a store written before
  /// format 4 (recorded by its first write).
  public var folderIdentity: FolderIdentity?

  /// The name a new device gets when none is given: the host name and the first four
  /// characters of the device id, such as `salon-mac-3f2b`.
  ///
  /// Two device folders on one machine (two homes, a test folder beside the real one) then
  /// tell themselves apart in conflicts and device lists, where the host name alone read
  /// "this device and salon-mac". A host name that is empty or not a valid name (too long,
  /// invisible or control characters) gives way to `device`. The name is chosen once, when
  /// the folder is created: an existing folder keeps the name it has.
  ///
  /// - Parameters:
  ///   - host: The machine's host name.
  ///   - device: The new device's id.
  /// - Returns: `<host>-<first four characters of the id>`.
  public static func defaultName(host: String, device: DeviceID) -> String {
    let suffix = "-" + device.rawValue.prefix(4)
    let valid = !host.isEmpty && (try? Validate.name(host + suffix, of: "device")) != nil
    return (valid ? host : "device") + suffix
  }

  /// The name once this device takes the id `new` in place of `old` (a copy that became a
  /// device of its own, `stash sync new-identity`): a default name, which ends in the old
  /// id's first four characters, follows the id, so the copy and the original stay told
  /// apart; any other name stays as it is.
  ///
  /// - Parameters:
  ///   - old: The id the device had.
  ///   - new: The id it takes.
  /// - Returns: The name to keep.
  public func name(changingID old: DeviceID, to new: DeviceID) -> String {
    let oldSuffix = "-" + old.rawValue.prefix(4)
    guard name.hasSuffix(oldSuffix), name.count > oldSuffix.count else { return name }
    return name.dropLast(oldSuffix.count) + "-" + new.rawValue.prefix(4)
  }

  /// Settings with the given values.
  public init(
    name: String, entitlement: Entitlement = .none, cloudFolder: String? = nil,
    stepsDone: Set<String> = [], folderIdentity: FolderIdentity? = nil
  ) {
    self.name = name
    self.entitlement = entitlement
    self.cloudFolder = cloudFolder
    self.stepsDone = stepsDone
    self.folderIdentity = folderIdentity
  }
}

/// The identity of a device folder on its file system: the device and inode numbers of the
/// folder itself, and its birth time where the file system keeps one.
///
/// All stay the same while the folder is used, compacted and renamed in place; a copy or a
/// restored backup is a new folder, with another inode (or on another device), or, when the
/// file system hands it the inode a deleted folder had, another birth time.
public struct FolderIdentity: Hashable, Sendable, CustomStringConvertible {
  /// The file system's device number.
  public let device: UInt64
  /// The folder's inode number.
  public let inode: UInt64
  /// When the folder was born (`seconds.nanoseconds`), where the file system says.
  public let born: String?

  /// An identity.
  public init(device: UInt64, inode: UInt64, born: String? = nil) {
    self.device = device
    self.inode = inode
    self.born = born
  }

  /// Whether this is the folder `other` describes: the same device and inode, and the same
  /// birth time when both know one.
  public func isSameFolder(as other: FolderIdentity) -> Bool {
    device == other.device && inode == other.inode
      && (born == nil || other.born == nil || born == other.born)
  }

  public var description: String {
    "device \(device) inode \(inode)" + (born.map { " born \($0)" } ?? "")
  }
}
