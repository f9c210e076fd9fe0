#pragma once

#include <string>

namespace freshet {

// A random (version 4) UUID in its canonical 36-character form. Used for file names, commit users
// and snapshot ids, where uniqueness across processes matters.
std::string RandomUuid();

}  // namespace freshet
