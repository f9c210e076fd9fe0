#pragma once

#define FRESHET_VERSION_STRING "0.1.0"

namespace freshet {

// The library version, e.g. "0.1.0".
const char* Version();

}  // namespace freshet
