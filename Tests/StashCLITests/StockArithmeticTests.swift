import Foundation
import LocalStore
import Stash
import StashModel
import StashTestSupport
import Testing

/// `restock` and `consume` never trap on a quantity no local edit could make (one an older
/// version imported from a shared folder, say): they refuse with a message.
@Suite struct StockArithmeticTests {
  @Test(arguments: [Int64.min, -5, Int64.max])
  func restockAndConsumeRefuseAnAbsurdStoredQuantity(_ quantity: Int64) throws {
    try withCLI { cli in
      let device = try cli.device()
      let record = HostileSegment.item(name: "Odd", quantity: quantity)
      _ = try device.local!.update("a seeded row") { _, transaction in
        try transaction.insert(record)
      }
      for arguments in [["restock", "Odd", "1"], ["consume", "Odd", "1"]] {
        let run = try cli.run(arguments)
        #expect(run.status == 1, "\(arguments): \(run)")
        #expect(!run.standardError.isEmpty)
      }
    }
  }
}
