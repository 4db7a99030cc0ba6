// The App target; see docs/ARCHITECTURE.md.
