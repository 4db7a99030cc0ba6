import Bluetooth
import Clocks
import Testing
@testable import Simulator

struct NoisyCrowdTests {
    @Test func fortyMembersWithTheirBehaviours() {
        let crowd = NoisyCrowd()
        let peripherals = crowd.peripherals()
        #expect(peripherals.count == 40)
        #expect(Set(peripherals.map(\.address)).count == 40)
        #expect(peripherals.filter { $0.advertising.kind == .connectable }.count == 10)
        for (member, peripheral) in peripherals.enumerated() {
            #expect(peripheral.advertising.kind == (NoisyCrowd.behaviour(of: member) == .phone ? .connectable : .nonConnectable))
            #expect(peripheral.advertising.interval >= .milliseconds(200) && peripheral.advertising.interval <= .milliseconds(2000))
            #expect(peripheral.address.type == .random)
            // Resolvable private addresses have 01 in the top two bits (Vol 6 Part B §1.3.2.2).
            #expect(peripheral.address.address.value >> 46 == 0b01)
        }
    }

    @Test(arguments: 0..<8)
    func everyAdvertFitsALegacyPDU(member: Int) throws {
        for event in UInt64(0)..<500 {
            let bytes = NoisyCrowd.advertisingData(member: member, event: event, seed: 7)
            #expect(bytes.count <= 31)
            switch NoisyCrowd.behaviour(of: member) {
            case .beacon, .phone:
                // Well formed: the project's AD parser walks it to the end, flags first.
                let ad = try AdvertisingData(bytes)
                #expect(ad.flags != nil)
            case .garbage:
                break
            }
        }
    }

    /// Garbage members send what a parser must survive: some of it does not parse at all.
    @Test func garbageIsOftenMalformed() {
        let adverts = (UInt64(0)..<200).map { NoisyCrowd.advertisingData(member: 2, event: $0, seed: 7) }
        let malformed = adverts.filter { (try? AdvertisingData($0)) == nil }.count
        #expect(malformed > 20)
        #expect(Set(adverts).count > 150, "a different advert nearly every event")
    }

    @Test func theSameSeedRepeatsTheRun() {
        #expect(NoisyCrowd.advertisingData(member: 5, event: 42, seed: 1) == NoisyCrowd.advertisingData(member: 5, event: 42, seed: 1))
        #expect(NoisyCrowd(seed: 1).addresses == NoisyCrowd(seed: 1).addresses)
        #expect(NoisyCrowd(seed: 1).addresses != NoisyCrowd(seed: 2).addresses)
    }

    /// Every member takes a new address once per rotation interval, staggered over the
    /// members; the radio carries the new address, and nothing else about the member changes.
    @Test func addressesRotateOnTheRadio() {
        var crowd = NoisyCrowd(count: 4, rotationInterval: .seconds(400))
        var radio = SimulatedRadio(peripherals: crowd.peripherals())
        let before = crowd.addresses
        // Member m rotates at m × 100 s + 400 s × generation.
        #expect(crowd.nextDeadline == .zero + .seconds(400))
        crowd.rotate(&radio, at: .zero + .seconds(400))
        #expect(crowd.addresses[0] != before[0])
        #expect(Array(crowd.addresses[1...]) == Array(before[1...]))
        #expect(radio.peripherals.map(\.address) == crowd.addresses)
        #expect(crowd.nextDeadline == .zero + .seconds(500))
        crowd.rotate(&radio, at: .zero + .seconds(800))
        #expect(crowd.generations == [2, 1, 1, 1])
        #expect(radio.peripherals.map(\.address) == crowd.addresses)
        #expect(Set(crowd.addresses).isDisjoint(with: before))
    }
}
