// FRESHET_EXPORT marks what libfreshet.so exports. The library is compiled with hidden visibility
// (-fvisibility=hidden -fvisibility-inlines-hidden) and linked with a version script
// (cmake/libfreshet.map) that keeps only freshet's own symbols, so that the classes and functions
// of include/freshet marked with it are the ABI; everything in src/, and the Arrow, Parquet,
// nlohmann and standard library code compiled into the library, stays internal.
//
// They are C++11 attributes so that they combine with [[nodiscard]] on a class. A nested
// `class FRESHET_NO_EXPORT Impl;` keeps a public class's implementation internal (a nested class
// takes its enclosing class's visibility otherwise).
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define FRESHET_EXPORT [[gnu::visibility("default")]]
#define FRESHET_NO_EXPORT [[gnu::visibility("hidden")]]
#else
#define FRESHET_EXPORT
#define FRESHET_NO_EXPORT
#endif
