// ThreadSanitizer's built-in suppressions for the test binary: the runtime asks for them at start-up
// (a weak hook of the sanitizer runtime, overridden here); a build without ThreadSanitizer never
// calls it.
//
// One false positive only, upstream's (swiftlang/swift#57803, still reported by Swift 6.3.1):
// `UnsafeContinuation.resume` on one thread reads a word of the awaiting task's frame that the
// task, still finishing `withUnsafeContinuation` on another thread, writes. The runtime orders the
// two with an atomic status word that ThreadSanitizer does not see. `race_top` matches only a report
// whose racing access is in that stdlib code itself, never a race in our own code under it.
#include "SanitizerSuppressions.h"

const char *__tsan_default_suppressions(void) {
    return "race_top:withUnsafeContinuation\n"
           "race_top:withUnsafeThrowingContinuation\n";
}
