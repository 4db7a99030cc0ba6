import Alarms
import Clocks
import Web

/// The page's actions on the alarms (docs/web.md "Routes"): the same engine calls the button
/// makes (`ApplianceFace`'s gestures), so the same rules hold: urgent low snoozes for at most
/// 30 minutes, and snooze all never covers it. Each is logged, and recorded in the history as
/// the engine's events are, like a press.
extension Supervisor {
    mutating func actOnAlarms(_ request: HTTP.Request, on id: WebConnection, at now: ClockReadings) {
        guard let form = Website.form(of: request) else {
            return respondWeb(id, Website.error(.badRequest, "expected a form (application/x-www-form-urlencoded)"), at: now)
        }
        guard let face else { return respondWeb(id, Website.error(.notFound, "no alarms run here"), at: now) }
        website?.renderedState = nil
        let t = at(now.monotonic)
        // The engine as of now: a snooze that ran out a moment ago is not snoozed any more.
        self.face?.handleDeadline(at: t)
        let engine = self.face?.alarms.engine ?? face.alarms.engine
        if request.path == "/alarms/snooze-all" {
            let maximum = Int(engine.configuration.maximumSnoozeAll.components.seconds / 60)
            guard let text = form["minutes"], let minutes = Int(text), (1...maximum).contains(minutes) else {
                return respondWeb(id, Website.error(.badRequest, "minutes must be a whole number from 1 to \(maximum)"), at: now)
            }
            self.face?.receive(.snoozeAll(for: .seconds(minutes * 60)), at: t)
            log(.notice, "web: snooze all for \(minutes) min, from the page")
        } else {
            guard let name = form["alarm"] else {
                return respondWeb(id, Website.error(.badRequest, "the form needs an alarm"), at: now)
            }
            guard let kind = AlarmKind(name: name), let alarm = engine.activeAlarms.first(where: { $0.kind == kind }) else {
                return respondWeb(id, Website.error(.notFound, "no such alarm is active"), at: now)
            }
            if request.path == "/alarms/snooze" {
                let duration = face.actions.snooze(for: kind)
                self.face?.receive(.snooze(kind, for: duration), at: t)
                log(.notice, "web: \(kind.name) snoozed for \(duration.components.seconds / 60) min, from the page")
            } else {
                guard alarm.isSounding else {
                    return respondWeb(id, Website.error(Self.conflict, "\(kind.name) is not sounding: nothing to acknowledge"), at: now)
                }
                self.face?.receive(.acknowledge(kind), at: t)
                log(.notice, "web: \(kind.name) acknowledged, from the page")
            }
        }
        // The engine's events recorded and announced, the face shown, the state saved: as a press.
        report(at: now)
        website!.absorb()
        respondWeb(id, .json(webState(at: now)), at: now)
    }

    /// RFC 9110 §15.5.10: the request conflicts with the alarm's state (not sounding).
    static let conflict = HTTP.Status(code: 409, reasonPhrase: "Conflict")
}
