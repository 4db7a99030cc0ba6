// The SMP target; see docs/ARCHITECTURE.md.
