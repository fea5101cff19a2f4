import Dispatch
import WebSocketCore

/// The adapter's clock: `DispatchTime`'s monotonic uptime, expressed as the core's ``Instant``.
enum MonotonicClock {
    /// Now, as nanoseconds of uptime.
    static func now() -> Instant {
        Instant(sinceOrigin: .nanoseconds(Int64(clamping: DispatchTime.now().uptimeNanoseconds)))
    }

    /// The `DispatchTime` of an instant from ``now()``, rounded up to the next nanosecond (a timer
    /// must not fire before the core's deadline) and clamped to the representable range.
    static func dispatchTime(_ instant: Instant) -> DispatchTime {
        let (seconds, attoseconds) = instant.sinceOrigin.components
        guard seconds >= 0 else { return DispatchTime(uptimeNanoseconds: 0) }
        let (scaled, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .distantFuture }
        let (nanoseconds, overflow2) = scaled.addingReportingOverflow(UInt64((max(0, attoseconds) + 999_999_999) / 1_000_000_000))
        return overflow2 ? .distantFuture : DispatchTime(uptimeNanoseconds: nanoseconds)
    }
}
