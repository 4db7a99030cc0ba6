/// Accumulates SVG text; `text` places a `<text>` element whose content the caller escaped.
struct SVGBuilder {
    var out = ""

    mutating func raw(_ element: String) {
        out += element
        out += "\n"
    }

    mutating func text(_ content: String, x: Double, y: Double, size: Double, extra: String = "") {
        raw(##"<text x="\##(ReportRenderer.f(x))" y="\##(ReportRenderer.f(y))" font-size="\##(ReportRenderer.f(size))"\##(extra.isEmpty ? "" : " " + extra)>\##(content)</text>"##)
    }

    /// XML character escaping for text and attribute content.
    static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
