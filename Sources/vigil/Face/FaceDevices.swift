import Alarms
import App
import Platform

/// Opens the face a `FaceSetup` asks for.
enum FaceDevices {
    /// `.gpio`: the GPIO device, or nil after logging at error level why the lines could not be
    /// had (no chip, a busy line, permissions): the caller decides whether to go on without a
    /// face or stop. `.console`: the terminal drawing. `.none`: nil, nothing to drive.
    static func open(_ setup: FaceSetup, logger: Logger) -> (any FaceDevice)? {
        switch setup.backend {
        case let .gpio(lines):
            do throws(GPIOError) {
                return try GPIOFaceDevice.open(lines, drive: setup.buzzerDrive, logger: logger)
            } catch {
                logger.log(.error, "cannot open the GPIO face (board \(lines.board), \(lines.chip)): \(error)")
                return nil
            }
        case .console:
            return ConsoleFaceDevice(logger: logger)
        case .none:
            return nil
        }
    }
}
