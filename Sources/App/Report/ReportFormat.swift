/// How a report is delivered: the SVG page itself, or the SVG inside an HTML page
/// (`vigil report -o FILE.svg|FILE.html`, serial `REPORT [svg|html]`, the USB bundle).
public enum ReportFormat: String, Equatable, Hashable, Sendable, CaseIterable {
    case svg
    case html

    /// The format a file name asks for by its extension (ASCII case ignored), nil for others.
    public init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: "."), let format = ReportFormat(rawValue: fileName[fileName.index(after: dot)...].lowercased()) else { return nil }
        self = format
    }

    public var fileExtension: String { rawValue }

    public var mediaType: String {
        switch self {
        case .svg: "image/svg+xml"
        case .html: "text/html"
        }
    }

    /// The document.
    public func render(_ report: GlucoseReport) -> String {
        switch self {
        case .svg: ReportRenderer.svg(report)
        case .html: ReportRenderer.html(report)
        }
    }
}
