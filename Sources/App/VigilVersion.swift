/// Vigil's version: what `vigil --version` prints, what `vigil status` reports, and what the
/// Debian package is called (`scripts/package-deb` reads this line, so it is the one place).
public enum VigilVersion {
    public static let string = "0.6.0"
}
