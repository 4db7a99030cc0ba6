extension Website.Assets {
    /// `GET /icon.svg`: the tab's icon, a drop with a trend line, drawn here so nothing is
    /// fetched from elsewhere.
    public static let icon: String = #"""
<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32" width="32" height="32">
<path d="M16 2C16 2 5 14.5 5 21a11 11 0 0 0 22 0C27 14.5 16 2 16 2z" fill="#2f6fb0"/>
<path d="M9.5 22.5l4-4 3 3 6-6" fill="none" stroke="#f2f1ec" stroke-width="2.4" stroke-linecap="round" stroke-linejoin="round"/>
</svg>
"""#
}
