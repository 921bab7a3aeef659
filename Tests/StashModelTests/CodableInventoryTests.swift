import Foundation
import StashModel
import Testing

/// The inventory's `item`, declared as a `CodableRecord`: the derived schema is the
/// hand-written one field for field, so a model moved to `Codable` keeps every hash.
struct CodableItem: CodableRecord {
  static let model = "item"
  static let declaration = RecordDeclaration(
    changeTime: "updatedAt", references: ["locationID": "location"], lookup: ["name"],
    candidateKey: "barcode")
  var id: RecordID
  var name: String
  var brand: String?
  var quantity: Counter
  var unit: String
  var notes: String
  var photo: BlobRef?
  var locationID: RecordID?
  var lowStockThreshold: Int64?
  var barcode: String?
  var createdAt: Timestamp
  var updatedAt: Timestamp
}

@Suite struct CodableInventoryTests {
  @Test func aCodableItemHasTheInventorysSchemaAndKeepsEveryGoldenHash() throws {
    #expect(CodableItem.schema == InventorySchemas.item)
    #expect(CodableItem.schema.lookupFields == InventorySchemas.item.lookupFields)
    #expect(CodableItem.schema.changeTimeIndex == InventorySchemas.item.changeTimeIndex)
    #expect(CodableItem.schema.candidateKeyIndex == InventorySchemas.item.candidateKeyIndex)
    var items = 0
    for (name, snapshot) in SnapshotVectors.all {
      guard case .record(let record) = snapshot, record.model == "item" else { continue }
      items += 1
      let read = try CodableItem(record: record)
      let written = try read.makeRecord()
      #expect(written.snapshotHash == record.snapshotHash, "\(name)")
      #expect(written.values == record.values, "\(name)")
    }
    #expect(items > 0)
  }
}
