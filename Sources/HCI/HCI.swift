// The HCI target; see docs/ARCHITECTURE.md.
