import Testing
@testable import Transmitters

@Suite struct TransmitterCatalogTests {
    let catalog = TransmitterCatalog.builtIn

    @Test func namesAreUniqueAcrossConnectedAndBroadcastTypes() {
        #expect(Set(catalog.names).count == catalog.names.count)
        #expect(catalog.names == TransmitterRegistry.builtIn.names + BroadcastRegistry.builtIn.names)
    }

    @Test func theRegistriesAreViewsOfTheCatalog() {
        #expect(TransmitterRegistry.builtIn.names == catalog.entries.filter { !$0.isBroadcast }.map(\.name))
        #expect(BroadcastRegistry.builtIn.names == catalog.entries.filter(\.isBroadcast).map(\.name))
        #expect(Set(BroadcastRegistry.builtIn.names).isSuperset(of: ["bthome", "ruuvi"]))
        #expect(catalog.entry(named: "bthome")?.isBroadcast == true)
        #expect(catalog.entry(named: "heart-rate")?.isBroadcast == false)
        #expect(catalog.entry(named: "nonesuch") == nil)
    }

    /// The types this checkout ships, each in its category. Per type rather than whole lists:
    /// adding a type is its folder and its catalog line, and must not break this test.
    @Test(arguments: [
        ("xbridge", TransmitterCategory.continuousGlucose), ("cgm-service", .continuousGlucose),
        ("miaomiao", .continuousGlucose), ("bubble", .continuousGlucose), ("dexcom", .continuousGlucose),
        ("glucose-meter", .glucoseMeter), ("heart-rate", .heartRate),
        ("sensortag", .thermometer), ("bthome", .thermometer), ("ruuvi", .thermometer),
    ])
    func everyTypeDeclaresItsCategory(name: String, category: TransmitterCategory) {
        #expect(catalog.declaration(named: name)?.category == category)
        #expect(catalog.names(in: category).contains(name))
    }

    /// A continuous glucose sensor without a sensor-life alarm family could not warn before its
    /// sensor expires; one whose alarms miss its category's would lose alarms silently.
    @Test func everyTypeOffersItsCategorysAlarms() {
        for entry in catalog.entries {
            #expect(entry.declaration.alarms.isSuperset(of: entry.declaration.category.alarms), "\(entry.name)")
            #expect(!entry.declaration.fuzzTarget.isEmpty, "\(entry.name)")
            #expect(!entry.summary.isEmpty, "\(entry.name)")
        }
    }

    @Test func declarationsReachTheirEntries() throws {
        let dexcom = try #require(catalog.declaration(named: "dexcom"))
        #expect(dexcom.fuzzTarget == "dexcom")
        #expect(dexcom.alarms == [.sensorLife, .batteryVoltage])
        #expect(catalog.declaration(named: "miaomiao")?.fuzzTarget == "libre")
        #expect(catalog.declaration(named: "ruuvi")?.fuzzTarget == "advertising")
    }
}
