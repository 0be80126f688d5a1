import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The folder that holds every scratch file of this test process: `glucomodel-tests-<pid>` in the
/// system's temporary folder. It is removed when the process exits, and a folder left by a run that
/// was killed is removed by a later run once its process is gone and it has not changed for an hour
/// (the hour keeps a live run of another machine or container sharing the folder safe), so running
/// the suite leaves nothing behind.
enum ScratchSpace {
    static let root: URL = {
        let base = FileManager.default.temporaryDirectory
        removeFoldersOfEndedRuns(in: base)
        let url = folder(ofProcess: getpid(), in: base)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        atexit {
            try? FileManager.default.removeItem(at: ScratchSpace.folder(ofProcess: getpid(), in: FileManager.default.temporaryDirectory))
        }
        return url
    }()

    private static let prefix = "glucomodel-tests-"

    static func folder(ofProcess pid: pid_t, in base: URL) -> URL {
        base.appendingPathComponent("\(prefix)\(pid)")
    }

    /// Removes the scratch folders of test processes that have ended.
    private static func removeFoldersOfEndedRuns(in base: URL) {
        let fm = FileManager.default
        let names = (try? fm.contentsOfDirectory(atPath: base.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            let folder = base.appendingPathComponent(name)
            guard kill(pid, 0) == -1 && errno == ESRCH,
                  let changed = (try? fm.attributesOfItem(atPath: folder.path))?[.modificationDate] as? Date,
                  changed < Date(timeIntervalSinceNow: -3600) else { continue }
            try? fm.removeItem(at: folder)
        }
    }
}
