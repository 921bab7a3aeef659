public import Foundation

/// A test-only executable of this package (`StashCrashChild`, `StashHeapProbe`), built beside
/// the test runner by `swift test`.
public func builtExecutable(_ name: String) -> URL {
  #if os(macOS)
    for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
      return bundle.bundleURL.deletingLastPathComponent().appendingPathComponent(name)
    }
  #endif
  return Bundle.main.bundleURL.appendingPathComponent(name)
}
