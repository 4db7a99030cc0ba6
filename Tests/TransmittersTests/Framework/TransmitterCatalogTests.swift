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
        #expect(BroadcastRegistry.builtIn.names == ["bthome", "ruuvi"])
        #expect(catalog.entry(named: "bthome")?.isBroadcast == true)
        #expect(catalog.entry(named: "heart-rate")?.isBroadcast == false)
        #expect(catalog.entry(named: "nonesuch") == nil)
    }

    @Test func everyTypeDeclaresItsCategory() {
        #expect(catalog.names(in: .continuousGlucose) == ["xbridge", "cgm-service", "miaomiao", "bubble", "dexcom"])
        #expect(catalog.names(in: .glucoseMeter) == ["glucose-meter"])
        #expect(catalog.names(in: .heartRate) == ["heart-rate"])
        #expect(catalog.names(in: .thermometer) == ["sensortag", "bthome", "ruuvi"])
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
