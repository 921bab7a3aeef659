import StashBase
import StashModel
import Testing

/// ``Parallel`` gives what a sequential `map` gives, in order, however many threads run it,
/// and reports the lowest failing index even when later chunks fail first.
@Suite struct ParallelTests {
  @Test(arguments: [0, 1, 511, 512, 1023, 1024, 1025, 4099, 100_000])
  func aMapEqualsTheSequentialMap(count: Int) {
    let expected = (0..<count).map { $0 &* 2_654_435_761 % 1_000_003 }
    for workers in [1, 2, 3, 8] {
      for minimumChunk in [1, 7, 512] {
        let mapped = Parallel.map(count: count, workers: workers, minimumChunk: minimumChunk) {
          $0 &* 2_654_435_761 % 1_000_003
        }
        #expect(mapped == expected, "count \(count), workers \(workers), chunk \(minimumChunk)")
      }
    }
  }

  @Test func theFirstProblemIsTheLowestFailingIndex() {
    let failing: Set<Int> = [77_777, 3_001, 99_999, 50_000]
    for workers in [1, 2, 4] {
      let found = Parallel.firstProblem(count: 100_000, workers: workers) { index in
        failing.contains(index) ? "index \(index)" : nil
      }
      #expect(found?.index == 3_001)
      #expect(found?.problem == "index 3001")
    }
    #expect(Parallel.firstProblem(count: 100_000) { _ -> String? in nil } == nil)
  }
}
