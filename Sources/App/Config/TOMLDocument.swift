extension TOML {
    /// The table tree while it is being built, with what TOML needs to know to reject
    /// redefinitions: how each table came to exist (TOML v1.0.0 "Table", "Inline Table",
    /// "Array of Tables", "Keys" sections). Reference types, so a header can hand the parser
    /// the table that the following keys go into.
    final class TableNode {
        enum Origin {
            /// Created as a prefix of a header (`a` in `[a.b]`); may still get its own header.
            case implicit
            /// Defined by its own `[header]` (or `[[header]]` element, or the root).
            case header
            /// Created by a dotted key (`a` in `a.b = 1`); may not get a header later.
            case dotted
            /// Written `{ ... }`; frozen.
            case inline
        }

        enum Content {
            case value(Value)
            case table(TableNode)
            case arrayOfTables(TableArrayNode)
        }

        struct Child {
            var keyPosition: Position
            var content: Content
        }

        var origin: Origin
        var position: Position
        private(set) var order: [String] = []
        private(set) var children: [String: Child] = [:]

        init(_ origin: Origin, at position: Position) {
            self.origin = origin
            self.position = position
        }

        func insert(_ key: String, _ child: Child) {
            if children.updateValue(child, forKey: key) == nil { order.append(key) }
        }

        func child(_ key: String) -> Child? { children[key] }

        /// Marks this table and every table inside it as inline, so nothing can extend them.
        func freeze() {
            origin = .inline
            for case .table(let t) in children.values.map(\.content) { t.freeze() }
        }

        var table: Table {
            Table(entries: order.map { key in
                let child = children[key]!
                return Table.Entry(key: key, keyPosition: child.keyPosition, value: child.content.value)
            })
        }
    }

    final class TableArrayNode {
        var tables: [TableNode]
        let position: Position

        init(first: TableNode, at position: Position) {
            tables = [first]
            self.position = position
        }
    }
}

extension TOML.TableNode.Content {
    var value: TOML.Value {
        switch self {
        case .value(let v): v
        case .table(let t): TOML.Value(.table(t.table), at: t.position)
        case .arrayOfTables(let a):
            TOML.Value(.array(a.tables.map { TOML.Value(.table($0.table), at: $0.position) }), at: a.position)
        }
    }

    /// The line that first gave this key its meaning, for "first defined on line N".
    var line: Int {
        switch self {
        case .value(let v): v.position.line
        case .table(let t): t.position.line
        case .arrayOfTables(let a): a.position.line
        }
    }
}

extension TOML.TableNode {
    typealias Key = [(name: String, position: TOML.Position)]

    /// Finds or creates the table a `[header]` or `[[header]]` names and returns it.
    func openHeader(_ key: Key, isArray: Bool, at headerPosition: TOML.Position) throws(TOML.SyntaxError) -> TOML.TableNode {
        var table = self
        for (i, part) in key.enumerated() {
            let path = key[...i].map(\.name)
            let isLast = i == key.count - 1
            guard let existing = table.child(part.name) else {
                if isLast {
                    let created = TOML.TableNode(.header, at: headerPosition)
                    let content: Content = isArray
                        ? .arrayOfTables(TOML.TableArrayNode(first: created, at: headerPosition))
                        : .table(created)
                    table.insert(part.name, Child(keyPosition: part.position, content: content))
                    return created
                }
                let created = TOML.TableNode(.implicit, at: part.position)
                table.insert(part.name, Child(keyPosition: part.position, content: .table(created)))
                table = created
                continue
            }
            switch existing.content {
            case .value:
                throw TOML.SyntaxError(
                    isLast && isArray
                        ? .notAnArrayOfTables(path: path, firstLine: existing.content.line)
                        : .notATable(path: path, firstLine: existing.content.line),
                    at: part.position)
            case .table(let t):
                if t.origin == .inline {
                    throw TOML.SyntaxError(.inlineTableExtended(path: path, firstLine: t.position.line), at: part.position)
                }
                if isLast {
                    if isArray {
                        throw TOML.SyntaxError(.notAnArrayOfTables(path: path, firstLine: t.position.line), at: part.position)
                    }
                    guard t.origin == .implicit else {
                        throw TOML.SyntaxError(.tableRedefined(path: path, firstLine: t.position.line), at: part.position)
                    }
                    t.origin = .header
                    t.position = headerPosition
                    return t
                }
                table = t
            case .arrayOfTables(let a):
                if isLast {
                    guard isArray else {
                        throw TOML.SyntaxError(.tableIsArrayOfTables(path: path, firstLine: a.position.line), at: part.position)
                    }
                    let created = TOML.TableNode(.header, at: headerPosition)
                    a.tables.append(created)
                    return created
                }
                table = a.tables[a.tables.count - 1]  // `[[a]]` then `[a.b]` means the latest a
            }
        }
        return table  // unreachable for a non-empty key; the parser never passes an empty one
    }

    /// Sets `key = value` in this table, creating the tables a dotted key goes through.
    func assign(_ key: Key, _ content: Content) throws(TOML.SyntaxError) {
        var table = self
        for (i, part) in key.enumerated() {
            let path = key[...i].map(\.name)
            if i == key.count - 1 {
                if let existing = table.child(part.name) {
                    throw TOML.SyntaxError(.duplicateKey(path: path, firstLine: existing.content.line), at: part.position)
                }
                table.insert(part.name, Child(keyPosition: part.position, content: content))
                return
            }
            guard let existing = table.child(part.name) else {
                let created = TOML.TableNode(.dotted, at: part.position)
                table.insert(part.name, Child(keyPosition: part.position, content: .table(created)))
                table = created
                continue
            }
            switch existing.content {
            case .table(let t) where t.origin == .dotted:
                table = t
            case .table(let t) where t.origin == .inline:
                throw TOML.SyntaxError(.inlineTableExtended(path: path, firstLine: t.position.line), at: part.position)
            case .table(let t):
                throw TOML.SyntaxError(.dottedKeyIntoDefinedTable(path: path, firstLine: t.position.line), at: part.position)
            case .value, .arrayOfTables:
                throw TOML.SyntaxError(.notATable(path: path, firstLine: existing.content.line), at: part.position)
            }
        }
    }
}
