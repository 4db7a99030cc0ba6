// The Platform target; see docs/ARCHITECTURE.md.
