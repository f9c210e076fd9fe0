#include "freshet/version.h"

namespace freshet {

const char* Version() { return FRESHET_VERSION_STRING; }

}  // namespace freshet
