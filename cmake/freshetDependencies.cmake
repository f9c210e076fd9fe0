# Third-party dependencies: Arrow C++ (see freshetArrow.cmake) and Debian -dev packages.
include(${CMAKE_CURRENT_LIST_DIR}/freshetArrow.cmake)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(zstd REQUIRED)
find_package(Snappy REQUIRED)
find_package(ZLIB REQUIRED)
# xxHash (Debian libxxhash-dev): the bloom-filter file index hashes strings with XXH64, as Java.
if(NOT TARGET xxhash::xxhash)
  find_path(XXHASH_INCLUDE_DIR xxhash.h REQUIRED)
  find_library(XXHASH_LIBRARY NAMES xxhash REQUIRED)
  add_library(xxhash::xxhash UNKNOWN IMPORTED)
  set_target_properties(xxhash::xxhash PROPERTIES IMPORTED_LOCATION "${XXHASH_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${XXHASH_INCLUDE_DIR}")
endif()
# libdeflate (Debian libdeflate-dev): Parquet's page CRCs with PCLMULQDQ
# (src/format/parquet_page_crc.h).
if(NOT TARGET libdeflate::libdeflate)
  find_path(LIBDEFLATE_INCLUDE_DIR libdeflate.h REQUIRED)
  find_library(LIBDEFLATE_LIBRARY NAMES deflate REQUIRED)
  add_library(libdeflate::libdeflate UNKNOWN IMPORTED)
  set_target_properties(libdeflate::libdeflate PROPERTIES IMPORTED_LOCATION "${LIBDEFLATE_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${LIBDEFLATE_INCLUDE_DIR}")
endif()
if(FRESHET_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(FRESHET_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
