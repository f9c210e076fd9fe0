#pragma once

#include "freshet/export.h"

#define FRESHET_VERSION_STRING "0.1.0"

namespace freshet {

// The library version, e.g. "0.1.0" (thread-safe: a constant string).
FRESHET_EXPORT const char* Version();

}  // namespace freshet
