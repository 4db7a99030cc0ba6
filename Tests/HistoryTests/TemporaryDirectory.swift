import Platform

/// A fresh directory for one test's database files, removed when the test ends.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = try FileSystem.makeTemporaryDirectory(prefix: "vigil-history")
    }

    deinit { try? FileSystem.removeTree(path: path) }

    var database: String { path + "/history.sqlite" }

    func files() throws -> [String] { try FileSystem.contentsOfDirectory(path: path).sorted() }
}
