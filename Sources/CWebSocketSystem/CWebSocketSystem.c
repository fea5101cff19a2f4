// Headers only (include/CWebSocketSystem.h); SwiftPM needs a source file for a C target.
#include "CWebSocketSystem.h"
