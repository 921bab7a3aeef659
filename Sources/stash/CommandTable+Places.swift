import ArgumentParsing

extension CommandTable {
  static let locationArgument = Argument<String>(
    "LOCATION", help: "A location id, a unique id prefix (4+ characters) or an exact name")
  static let locationName = Argument<String>("NAME", help: "The location's name")

  static let latitude = Option<Double?>(
    "latitude", value: "D", help: "Latitude in degrees, such as 52.3702")
  static let longitude = Option<Double?>(
    "longitude", value: "D", help: "Longitude in degrees, such as 4.8952")
  static let radius = Option<Double?>(
    "radius", value: "D", help: "How near counts as arriving, in metres")

  // MARK: - Locations

  static let location = CommandSpec(
    "location",
    abstract: "Manage the places items are kept",
    subcommands: [locationAdd, locationList, locationEdit, locationDelete],
    requiresSubcommand: true,
    examples: ["stash location add bathroom", "stash location list"])

  static let locationAdd = CommandSpec(
    "add",
    abstract: "Add a location",
    arguments: [locationName.spec],
    options: [latitude.spec, longitude.spec, radius.spec, notes.spec],
    examples: [
      "stash location add bathroom",
      "stash location add shop --latitude 52.3702 --longitude 4.8952 --radius 150",
    ])

  static let locationList = CommandSpec(
    "list",
    abstract: "List locations",
    examples: ["stash location list --json"])

  static let locationEdit = CommandSpec(
    "edit",
    abstract: "Change a location's details",
    arguments: [locationArgument.spec],
    options: [newName.spec, latitude.spec, longitude.spec, radius.spec, notes.spec],
    examples: ["stash location edit shop --radius 200"])

  static let locationDelete = CommandSpec(
    "delete",
    abstract: "Delete a location",
    arguments: [locationArgument.spec],
    examples: ["stash location delete shop"])

  // MARK: - Reminders

  static let reminderLocation = Option<String>(
    "location", value: "L", help: "The location it belongs to: an id, id prefix or name")
  static let reminderItem = Option<String?>("item", value: "ITEM", help: "An item it is about")
  static let message = Option<String>("message", value: "TEXT", help: "What to remind you of")
  static let trigger = Option<String?>(
    "trigger", .choice(["arrive", "leave"]), help: "When to remind you (default: arrive)")
  static let disabled = Flag("disabled", help: "Create it switched off")
  static let reminderID = Argument<String>("ID", help: "The reminder's id or a unique id prefix")

  static let reminder = CommandSpec(
    "reminder",
    abstract: "Manage reminders shown when you arrive at or leave a location",
    subcommands: [reminderAdd, reminderList, reminderDelete],
    requiresSubcommand: true,
    examples: ["stash reminder list"])

  static let reminderAdd = CommandSpec(
    "add",
    abstract: "Add a reminder",
    options: [
      reminderLocation.spec, reminderItem.spec, message.spec, trigger.spec, disabled.spec,
    ],
    examples: [
      "stash reminder add --location shop --item \"Koleston 7/1\" --message \"Buy hair dye\"",
      "stash reminder add --location home --message \"Check the freezer\" --trigger leave",
    ])

  static let reminderList = CommandSpec(
    "list",
    abstract: "List reminders",
    examples: ["stash reminder list --json"])

  static let reminderDelete = CommandSpec(
    "delete",
    abstract: "Delete a reminder",
    arguments: [reminderID.spec],
    examples: ["stash reminder delete 9c1e"])

  // MARK: - Sync and conflicts

  static let cloud = Option<String>(
    "cloud", .path, value: "DIR", help: "A folder your devices share, such as a Dropbox folder")
  static let encrypt = Flag("encrypt", help: "Make the new shared folder encrypted, with a new key")
  static let joinKeyFile = Option<String?>(
    "key-file", .path, value: "FILE",
    help: "Join an encrypted folder with the sync key in FILE ('-': standard input)")
  static let keyFile = Option<String>(
    "key-file", .path, value: "FILE", help: "The sync keys ('-': standard input)")
  static let zone = Argument<String>(
    "ZONE", help: "The zone to join: its id, or its first 8 characters")

  static let watch = Flag(
    "watch", help: "Keep exchanging as changes appear, until interrupted (Ctrl-C)")
  static let interval = Option<Double?>(
    "interval", value: "SECONDS",
    help: "With --watch: how often to check for changes (default 1, from 0.05 to 3600)")

  static let sync = CommandSpec(
    "sync",
    abstract: "Exchange changes with the shared cloud folder",
    discussion: """
      Imports what other devices exported to the shared folder, reconciles it with this \
      device's inventory, and exports this device's changes. Each run starts with its gate \
      closed: nothing is copied until this run's import has finished successfully. A file \
      the sync tool is still delivering is waiting (read again next time), a wrong one is \
      rejected; neither is ever applied.

      Exit status: 0 when the run got as far as its import; whatever could not be done then \
      (waiting or rejected files, a failed pass, a stopped export) is in the output. \
      Non-zero only when nothing could be done: 1 sync is off or the shared folder cannot be \
      used (unreachable, another account's, a zone file still arriving or newer than this \
      stash), 3 busy (another stash holds this device folder), 4 damaged (this device's \
      mirror, or the shared folder's zone.json), 6 key (the shared folder is encrypted and \
      this device holds no key for it, or it holds keys and the folder is not encrypted).

      With --watch it keeps running: every interval (and as soon as the system reports a \
      change: inotify on Linux, kqueue on macOS) it checks, without locking anything, \
      whether this device's stores or the shared folder changed, and exchanges only then, \
      holding this device folder only while it exchanges (other commands keep working). \
      It prints one line per exchange that moved something (with --json, one object), says \
      why an exchange failed and waits longer after each failure (up to a minute), and \
      stops at SIGINT or SIGTERM once no exchange is under way, with exit status 0.
      """,
    options: [watch.spec, interval.spec],
    subcommands: [
      syncEnable, syncDisable, syncStatus, syncNewIdentity, syncJoinZone, syncVerify,
      syncAddKey, syncRotateKey,
    ],
    examples: [
      "stash sync", "stash sync --json", "stash sync --watch", "stash sync status",
    ])

  static let syncEnable = CommandSpec(
    "enable",
    abstract: "Turn on sync through a shared cloud folder",
    discussion: """
      Turns sync on through the shared folder from the next run ('stash sync disable' turns \
      it off again). Set sync up on one device first and let the folder reach the others \
      before enabling it there.

      With --encrypt, the folder (new and empty) is encrypted: a new random key is made, \
      printed once as a sync key (12 groups of 5 characters, with a check), and kept in this \
      device folder's 'sync-keys' file, readable by you only. Every other device joins with \
      --key-file FILE, a file holding the sync key (or '-' to read it from standard input); \
      the key is never given on the command line. A device that synced a plain folder \
      before sends everything it holds to the new one.

      Exit status: 0 on, 1 refused (the folder cannot be used, or --encrypt on a folder \
      that is already shared), 2 usage, 6 key (the key file holds no sync key, or a key \
      that is not this folder's, or the folder is not encrypted); nothing changes unless 0.
      """,
    options: [cloud.spec, encrypt.spec, joinKeyFile.spec],
    examples: [
      "stash sync enable --cloud ~/Dropbox/stash",
      "stash sync enable --cloud ~/Dropbox/stash --encrypt",
      "stash sync enable --cloud ~/Dropbox/stash --key-file ~/stash-key.txt",
    ])

  static let syncAddKey = CommandSpec(
    "add-key",
    abstract: "Enter a key another device made with 'stash sync rotate-key'",
    discussion: """
      Reads sync keys from FILE (or standard input for '-'), checks that each belongs to the \
      shared folder, and keeps them in this device's key file after the ones it holds. The \
      next sync reads what waited for the key and seals with the newest key.

      Exit status: 0 added, 1 refused (sync is off), 6 key (not a sync key, or not this \
      folder's); nothing changes unless 0.
      """,
    options: [keyFile.spec],
    examples: ["stash sync add-key --key-file ~/stash-key.txt", "stash sync add-key --key-file -"])

  static let syncRotateKey = CommandSpec(
    "rotate-key",
    abstract: "Make a new key for the encrypted shared folder",
    discussion: """
      What this device writes from now on is sealed with a new random key, printed once. \
      Files sealed before stay readable by every device that holds the older keys. Other \
      devices say they lack the key until it is entered there with 'stash sync add-key'. To \
      revoke a lost device, rotate on a remaining one and enter the new key on the others: \
      the lost device cannot read what is written after, but keeps what it already had.

      Exit status: 0 rotated, 1 refused (sync is off), 6 key (this device holds no key).
      """,
    examples: ["stash sync rotate-key"])

  static let syncDisable = CommandSpec(
    "disable",
    abstract: "Turn off sync; local data is kept",
    examples: ["stash sync disable"])

  static let syncNewIdentity = CommandSpec(
    "new-identity",
    abstract: "Give this device folder its own device id, keeping all its data",
    discussion: """
      For a device folder restored from a backup (or copied) onto a second machine: until \
      then both copies sync as one device, and 'stash sync' stops exporting and says so. \
      Run this on the copy that says so (on each, if both do). Both stores keep everything; \
      the next sync exports what this copy wrote again under the new id (duplicates are \
      harmless) and reads the old id's segments again, so both copies sync without loss.
      """,
    examples: ["stash sync new-identity"])

  static let syncJoinZone = CommandSpec(
    "join-zone",
    abstract: "Join the other zone of a zone race, keeping all this device's data",
    discussion: """
      Two devices that turned sync on with their own empty copies of the shared folder, \
      before the sync tool first ran, each made a zone of their own: 'stash sync', 'stash \
      sync status', 'stash sync verify' and 'stash doctor' then name the other zone and its \
      devices, and nothing of it is merged. If both zones are one inventory, run this on the \
      devices of one of them, typing the zone that 'stash sync' names there (its first 8 \
      characters are enough). This device then syncs that zone: its next sync reads that \
      zone's changes and sends everything this device holds there, and that zone's devices \
      merge it on their next sync. Nothing is lost and no file in the shared folder is \
      removed. Two inventories in one folder are never merged unless someone runs this.

      Exit status: 0 joined, 1 refused (sync is off, no other zone by that id holds changes \
      in the shared folder, several do, or it is this device's zone; nothing changes), 2 no \
      ZONE, 3 busy, 4 damaged.
      """,
    arguments: [zone.spec],
    examples: ["stash sync join-zone 737c4cd6"])

  static let syncStatus = CommandSpec(
    "status",
    abstract: "Show whether sync is on and what is waiting to be exchanged",
    discussion: """
      Shows the digest of this device's inventory (the same on every device that holds the \
      same records and deletions), the last successful import and export, what waits to \
      leave this device and what waits for the sync tool, another zone in the shared folder \
      and its devices (a zone race), photos this device holds that the folder lacks, open \
      conflicts, and every other device seen in the shared folder with when it last wrote.
      """,
    examples: ["stash sync status", "stash sync status --json"])

  static let conflicts = CommandSpec(
    "conflicts",
    abstract: "List changes made on two devices that need a decision",
    subcommands: [conflictsShow, conflictsResolve],
    examples: ["stash conflicts", "stash conflicts --json"])

  static let conflictID = Argument<String>("ID", help: "The conflict's id or a unique id prefix")
  static let keep = Option<String>(
    "keep", value: "local|mirror|deleted|VERSION",
    help: "This device's version, the cloud's, the deletion, or a version hash prefix")

  static let conflictsShow = CommandSpec(
    "show",
    abstract: "Show the versions of one conflict",
    arguments: [conflictID.spec],
    examples: ["stash conflicts show 51aa"])

  static let conflictsResolve = CommandSpec(
    "resolve",
    abstract: "Settle a conflict by choosing the version to keep",
    discussion: """
      'stash conflicts show ID' lists the sides and their hashes. A --keep value that is \
      not local, mirror, deleted or 4+ hex digits of a side's hash is a usage mistake (exit 2).
      """,
    arguments: [conflictID.spec],
    options: [keep.spec],
    examples: [
      "stash conflicts resolve 51aa --keep local", "stash conflicts resolve 51aa --keep e0c4",
    ])
}
