import ArgumentParsing
import Stash
import StashBase
import StashModel

/// `stash sync status [--json]`: whether sync is on, the digest, what waits on this device and
/// in the shared folder, conflicts, and every other device seen there.
enum SyncStatusCommand: StashHandler {
  static let path = ["sync", "status"]

  static func run(_ arguments: ParsedArguments, in session: Session) throws -> Int32 {
    // The local store through its index (the settings, then the records changed since it),
    // the mirror through its own when the shared folder holds nothing new for it.
    let device = try session.openForReading(focus: []).openedForStatus()
    device.folder.openMirrorForStatus()
    let status = device.folder.syncStatus()
    let overview = device.syncOverview(leavingOut: status.otherZones)
    if session.wantsJSON {
      session.output.json(json(status, overview, device: device))
    } else {
      session.output.lines(lines(status, overview, device: device, output: session.output))
    }
    return ExitStatus.done
  }

  /// Whether sync is on for this run. The library's entitlement rule is what decides, but a
  /// person using the CLI bought nothing: for them sync is on or off, turned on by `stash sync
  /// enable` and off by `stash sync disable`, so that is all the CLI says about it.
  static func isOn(_ status: SyncStatus) -> Bool {
    status.entitlementInEffect.opensMirror && status.cloudFolder != nil
  }

  /// Whether sync is on from the next run, as the saved settings say.
  static func isOnFromNextRun(_ status: SyncStatus) -> Bool {
    status.savedEntitlement.opensMirror && status.cloudFolder != nil
  }

  static func lines(
    _ status: SyncStatus, _ overview: SyncOverview, device: DeviceFolder, output: Output
  ) -> [String] {
    var lines = [
      isOn(status)
        ? "Sync: on ('stash sync disable' turns it off)"
        : "Sync: off ('stash sync enable --cloud DIR' turns it on)"
    ]
    if isOnFromNextRun(status) != isOn(status) {
      lines.append("From the next run: sync " + (isOnFromNextRun(status) ? "on" : "off"))
    }
    lines.append(
      "This device: \(device.folder.settings.name) (\(device.folder.deviceID?.rawValue ?? "-"))")
    lines.append("Shared folder: \(status.cloudFolder ?? "-")")
    if let encryption = status.encryption { lines += encryptionLines(encryption) }
    switch status.mirror {
    case .success(let id): lines.append("Mirror: \(id.rawValue)")
    case .failure(let reason) where reason.category == .damaged:
      lines.append("Mirror: - (\(reason.message))")
    case .failure: lines.append("Mirror: - (sync is off)")
    }
    if let zone = status.zone { lines.append("Zone: \(zone)") }
    lines.append("Digest: " + DigestView.summary(overview.digest))
    lines.append("Last import: \(Format.time(status.lastImport))")
    lines.append("Last export: \(Format.time(status.lastExport))")
    var pending = "Waiting to export: \(Format.count(overview.pendingRecords.count, "record"))"
    if status.pendingExports > 0 {
      pending += " (\(Format.count(status.pendingExports, "version")) in the mirror)"
    }
    if !overview.pendingRecords.isEmpty { pending += "; 'stash list --pending' lists them" }
    lines.append(pending)
    if let problem = status.folderProblem { lines.append("Shared folder problem: \(problem)") }
    let segments = status.waitingFiles.filter { $0.kind == .segment }.count
    let photos = status.waitingFiles.filter { $0.kind == .photo }.count
    if case .success = status.mirror, status.cloudFolder != nil, status.folderProblem == nil {
      lines.append(
        "Waiting for the sync tool: "
          + (status.waitingFiles.isEmpty
            ? "nothing"
            : "\(Format.count(segments, "segment")), \(Format.count(photos, "photo"))"))
    }
    for waiting in status.waiting { lines.append("  waiting: \(waiting)") }
    for rejected in status.rejected { lines.append("Would be rejected: \(rejected)") }
    if let stopped = status.exportStopped {
      lines.append("Export stopped: \(stopped.forPerson)")
    }
    if status.zoneFileMissing {
      lines.append(
        "Zone file: missing from the shared folder (renamed or lost by the sync tool); the "
          + "next 'stash sync' publishes it again")
    }
    for zone in status.otherZones { lines += OtherZoneView.lines(zone) }
    for photo in status.photosToPublish { lines.append(OtherZoneView.line(photo)) }
    lines.append(
      "Open conflicts here: \(status.openConflicts)"
        + (status.openConflicts > 0 ? "; 'stash conflicts' lists them" : ""))
    if case .success = status.mirror {
      lines.append("Concurrent versions in the shared folder: \(overview.concurrentInFolder)")
    }
    if !overview.peers.isEmpty {
      lines.append("Other devices:")
      var table = TextTable(headers: ["NAME", "ID", "LAST WROTE", "SEGMENTS"], rightAligned: [3])
      for peer in overview.peers {
        table.rows.append([
          peer.name ?? "-", String(peer.device.rawValue.prefix(8)), Format.time(peer.wroteAt),
          peer.segments.map { "\($0)" } ?? "-",
        ])
      }
      let rendered = table.render()
      lines += ["  " + output.heading(rendered[0])] + rendered.dropFirst().map { "  " + $0 }
    }
    return lines
  }

  static func json(
    _ status: SyncStatus, _ overview: SyncOverview, device: DeviceFolder
  ) -> JSONObject {
    var mirror: JSONValue = .null
    var mirrorState = "open"
    var mirrorProblem: JSONValue = .null
    switch status.mirror {
    case .success(let id): mirror = .string(id.rawValue)
    case .failure(let reason) where reason.category == .damaged:
      mirrorProblem = .string(reason.message)
      mirrorState = "unavailable"
    case .failure:
      mirrorState = "off"
    }
    var object: JSONObject = [
      "on": .bool(isOn(status)),
      "device": .object([
        "id": device.folder.deviceID.map { .string($0.rawValue) } ?? .null,
        "name": .string(device.folder.settings.name),
      ]),
      "onFromNextRun": .bool(isOnFromNextRun(status)),
      "cloudFolder": status.cloudFolder.map { .string($0) } ?? .null,
      "mirror": mirror,
      "mirrorState": .string(mirrorState),
      "mirrorProblem": mirrorProblem,
      "zone": status.zone.map { .string($0) } ?? .null,
      "digest": DigestView.json(overview.digest),
      "lastImport": Format.isoTime(status.lastImport),
      "lastExport": Format.isoTime(status.lastExport),
      "pendingExports": .integer(Int64(status.pendingExports)),
      "pendingRecords": .integer(Int64(overview.pendingRecords.count)),
      "waiting": .array(status.waitingFiles.map(note)),
      "rejected": .array(status.rejectedFiles.map(note)),
      "exportStopped": status.exportStopped.map { .string($0.forPerson) } ?? .null,
      "folderProblem": status.folderProblem.map { .string($0) } ?? .null,
      "zoneFileMissing": .bool(status.zoneFileMissing),
      "otherZones": .array(status.otherZones.map(OtherZoneView.json)),
      "photosToPublish": .array(status.photosToPublish.map(OtherZoneView.json)),
      "openConflicts": .integer(Int64(status.openConflicts)),
      "concurrentInFolder": .integer(Int64(overview.concurrentInFolder)),
      "devices": .array(overview.peers.map(peer)),
    ]
    if let encryption = status.encryption {
      object.append("encryption", encryptionJSON(encryption))
    }
    return object
  }

  /// What status says of an encrypted folder: key ids, never a key.
  static func encryptionLines(_ encryption: EncryptionStatus) -> [String] {
    var lines = [
      "Encryption: on" + (encryption.currentKey.map { ", sealing with key \($0)" } ?? "")
        + (encryption.heldKeys.count > 1
          ? " (this device holds \(encryption.heldKeys.count) keys)" : "")
    ]
    for key in encryption.missingKeys {
      lines.append(
        "This device lacks the shared folder's key '\(key)' (the key was rotated); enter it "
          + "with 'stash sync add-key --key-file FILE'")
    }
    return lines
  }

  /// `{"encrypted": true, "key", "keys", "folderKey", "missingKeys"}`: key ids only.
  static func encryptionJSON(_ encryption: EncryptionStatus) -> JSONValue {
    .object([
      "encrypted": .bool(true),
      "key": encryption.currentKey.map { .string($0) } ?? .null,
      "keys": .array(encryption.heldKeys.map { .string($0) }),
      "folderKey": encryption.folderKey.map { .string($0) } ?? .null,
      "missingKeys": .array(encryption.missingKeys.map { .string($0) }),
    ])
  }

  /// `{"id", "name", "lastWrote", "segments"}`: a device of the shared folder.
  static func peer(_ peer: PeerStatus) -> JSONValue {
    .object([
      "id": .string(peer.device.rawValue),
      "name": peer.name.map { .string($0) } ?? .null,
      "lastWrote": Format.isoTime(peer.wroteAt),
      "segments": peer.segments.map { .integer(Int64($0)) } ?? .null,
    ])
  }

  /// `{"file", "kind": "segment"|"photo", "reason"}`.
  static func note(_ note: SharedFileNote) -> JSONValue {
    .object([
      "file": .string(note.file), "kind": .string(note.kind.rawValue),
      "reason": .string(note.reason),
    ])
  }
}
