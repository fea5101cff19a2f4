#ifndef SANITIZER_SUPPRESSIONS_H
#define SANITIZER_SUPPRESSIONS_H

/// ThreadSanitizer's suppressions for the test binary (see SanitizerSuppressions.c).
const char *__tsan_default_suppressions(void);

#endif
