/// The version `vigil status` reports (and `vigil --version` could): one place to change it
/// when a release is cut.
public enum VigilVersion {
    public static let current = "0.1.0"
}
