extension Website {
    /// The page's files (docs/web.md "Routes"), compiled into the binary as text: the appliance
    /// ships one static executable with no resource bundle, and the page must work with no
    /// internet, so nothing is fetched from anywhere but the appliance itself.
    public enum Assets {}
}
