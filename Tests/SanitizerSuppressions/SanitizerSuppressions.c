// This file is part of swift-websocket. Copyright 2026 the swift-websocket authors.
// Licensed under the Apache License, Version 2.0 (see LICENSE and NOTICE).
// SPDX-License-Identifier: Apache-2.0

// ThreadSanitizer's built-in suppressions for the test binary: the runtime asks for them at start-up
// (a weak hook of the sanitizer runtime, overridden here); a build without ThreadSanitizer never
// calls it.
//
// One false positive only, upstream's (swiftlang/swift#57803, still reported by Swift 6.3.1):
// `UnsafeContinuation.resume` on one thread reads a word of the awaiting task's frame that the
// task, still finishing `withUnsafeContinuation` on another thread, writes. The runtime orders the
// two with an atomic status word that ThreadSanitizer does not see. `race_top` matches only a report
// whose racing access is in that stdlib code itself, never a race in our own code under it.
//
// The same false positive has a second face, suppressed by the `resume` lines. When the resume comes
// before the task has suspended, `swift_continuation_await` sees the status already "resumed" and
// the task runs on at once, without the acquire (`_swift_tsan_acquire`) that the runtime gives a
// task it enqueues again; ThreadSanitizer then sees nothing order the resume's read of the
// continuation's context (in the task's frame, the builtin inlined into `resume(returning:)`) before
// whatever the task does next. When its frame has been freed and the memory reused, the report's
// other access is in the code that runs next (seen: `WebSocket.take(from:all:timeout:)` after an
// async send), so only the resume side can be matched: its top frame is `UnsafeContinuation.resume`
// (mangled `$sScc6resume...`), whose accesses are the runtime's own bookkeeping of the
// continuation, never our data.
#include "SanitizerSuppressions.h"

const char *__tsan_default_suppressions(void) {
    return "race_top:withUnsafeContinuation\n"
           "race_top:withUnsafeThrowingContinuation\n"
           "race_top:sScc6resume\n"
           "race_top:UnsafeContinuation.resume\n";
}
