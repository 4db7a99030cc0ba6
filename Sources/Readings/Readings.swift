// The Readings target; see docs/ARCHITECTURE.md.
