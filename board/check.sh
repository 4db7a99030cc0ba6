#!/bin/sh
# CI check for board/: every wiring diagram is well-formed XML with an <svg> root, and the
# compiled-in copies of the board files are up to date. Optional: renders each diagram to
# PNG when rsvg-convert is installed (apt install librsvg2-bin), to catch SVG that is valid
# XML but that a renderer rejects.
set -eu
cd "$(dirname "$0")"
status=0
for svg in wiring-*.svg; do
    if command -v python3 >/dev/null 2>&1; then
        python3 -c '
import sys, xml.dom.minidom
doc = xml.dom.minidom.parse(sys.argv[1])
root = doc.documentElement
if root.tagName != "svg" or root.getAttribute("xmlns") != "http://www.w3.org/2000/svg":
    sys.exit(sys.argv[1] + ": the root element is not an SVG <svg>")
' "$svg" || status=1
    elif command -v xmllint >/dev/null 2>&1; then
        xmllint --noout "$svg" || status=1
    else
        echo "check.sh: neither python3 nor xmllint is installed: cannot check $svg" >&2
        exit 2
    fi
    if command -v rsvg-convert >/dev/null 2>&1; then
        rsvg-convert "$svg" >/dev/null || { echo "check.sh: rsvg-convert cannot render $svg" >&2; status=1; }
    fi
done
generated=../Sources/App/Board/BoardProfile+BuiltIn.swift
before=$(cat "$generated")
./embed.sh >/dev/null
if [ "$before" != "$(cat "$generated")" ]; then
    echo "check.sh: $generated was out of date with board/*.toml; embed.sh has rewritten it: commit it" >&2
    status=1
fi
[ "$status" -eq 0 ] && echo "board/: diagrams well-formed, compiled profiles up to date"
exit "$status"
