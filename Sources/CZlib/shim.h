// The system zlib (Linux: zlib1g-dev; Apple SDKs ship it), for the WebSocketDeflate module only.
#include <zlib.h>
