/// Placeholder so the page's assets build on their own branch; the web core's own
/// `Website` (docs/web.md) replaces this file when the branches meet.
public struct Website {}
