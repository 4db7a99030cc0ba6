// The Simulator target; see docs/ARCHITECTURE.md.
