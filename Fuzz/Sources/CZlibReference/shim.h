// The system zlib, for the harness's reference decoder (Sources/FuzzSupport/ReferenceInflater.swift):
// the deflate target checks what the library decodes against plain zlib calls made here.
#include <zlib.h>
