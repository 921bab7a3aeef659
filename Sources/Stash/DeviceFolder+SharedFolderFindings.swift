extension DeviceFolder {
  /// What the shared folder holds that keeps it apart from this device, for the doctor:
  /// another zone (a zone race: a warning, with what to do), a `zone.json` naming another zone
  /// or missing (a note), and photos this device holds that the folder lacks (a warning: the
  /// next sync publishes them). Nothing when sync is off or the folder cannot be read (a sync
  /// says why).
  func sharedFolderFindings() -> [DoctorReport.Finding] {
    let status = folder.syncStatus()
    var findings = [DoctorReport.Finding]()
    for zone in status.otherZones {
      findings.append(
        DoctorReport.Finding(
          zone.hasLiveSegments ? .warning : .note, "sync", zone.message, hint: zone.hint))
    }
    if status.zoneFileMissing {
      findings.append(
        DoctorReport.Finding(
          .note, "sync",
          "The shared folder's zone.json is missing (renamed or lost by the sync tool); the "
            + "next sync publishes it again"))
    }
    for photo in status.photosToPublish {
      findings.append(
        DoctorReport.Finding(
          .warning, "photos",
          "The photo '\(photo.photo.prefix(12))' is not in the shared folder as it should be "
            + "(\(photo.problem)); this device holds it, and its next sync publishes it again"))
    }
    return findings
  }
}
