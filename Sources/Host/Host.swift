// The Host target; see docs/ARCHITECTURE.md.
