import Testing

/// Parent of every suite that launches a rig or the binary. `.serialized` is inherited by the
/// nested suites, so only one rig and one `vigil` run at a time: the machine has 2 cores, and
/// the rigs' timing (advertising, notification rate) is part of what the tests observe.
@Suite(.serialized)
struct Interop {}

/// Disabled with a reason when Bumble is missing, unless `VIGIL_REQUIRE_INTEROP=1` (CI),
/// where the tests run and fail in `Rig.launch` instead: never a faked pass.
let bumbleRequired: ConditionTrait = .enabled(
    if: InteropEnvironment.shouldRunInteropTests,
    "Bumble venv not found: run scripts/bumble-env.sh")
