/// The largest files and numbers the transport accepts from the shared folder.
///
/// Everything in the shared folder is untrusted input: other machines and sync tools write it.
/// Every file's size is checked against these before a byte is read (a sparse terabyte costs
/// nothing to make and would otherwise be allocated whole), and every number read is checked
/// against its range before any arithmetic is done with it. `Fixtures/README.md` lists them
/// with the formats.
public enum CloudLimits {
  /// The largest `zone.json`: a real one is about a hundred bytes.
  public static let zoneFileBytes: Int64 = 64 << 10

  /// The largest segment file. Exports split their versions over as many segments as it
  /// takes to stay below it, so an honest device never writes a segment others refuse.
  public static let segmentBytes: Int64 = 64 << 20
  /// The most versions one segment holds: the mirror records a segment's versions as exported
  /// in one line, which must stay under a line's limit (1 MiB; a reference takes about 140
  /// bytes). Smaller segments also reach other devices sooner through a sync tool.
  public static let versionsPerSegment = 4_096

  /// The largest photo. Attaching a larger one is refused on the device (so every device can
  /// receive what it exports); a version naming a larger one is invalid.
  public static let photoBytes: Int64 = 50 << 20

  /// The highest segment sequence number, in a file name or a header: a device would have
  /// to export every second for 30,000 years to reach it, and one more never overflows.
  public static let sequence: Int64 = 999_999_999_999

  /// The highest version generation: one more than its highest parent's, so it counts edits
  /// of one record. A larger number can only come from a broken or hostile writer, and the
  /// next local edit's generation (one more) must not overflow.
  public static let generation: Int64 = 1 << 53

  /// How many bytes of a segment are read to find its header line (for the check of this
  /// device's own files).
  static let headerBytes = 4096
}
