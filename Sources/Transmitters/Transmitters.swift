// The Transmitters target; see docs/ARCHITECTURE.md.
