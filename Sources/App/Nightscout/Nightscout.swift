/// The read side of Nightscout's REST API v1, served from what the appliance already holds, so
/// follower apps, clocks and client libraries watch Vigil on the home network unchanged
/// (docs/nightscout-api.md: the endpoints, the field names and where each fact comes from).
///
/// Sans-IO: `Nightscout.API.respond(to:snapshot:)` takes a request already parsed by the HTTP
/// layer and a `Nightscout.Snapshot` of the data at one wall-clock moment, and returns the status,
/// media type and body. It reads no clock and does no I/O.
public enum Nightscout {}
