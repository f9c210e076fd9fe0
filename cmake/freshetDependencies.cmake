# Third-party dependencies: Arrow C++ (see freshetArrow.cmake) and Debian -dev packages.
include(${CMAKE_CURRENT_LIST_DIR}/freshetArrow.cmake)
find_package(Threads REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(zstd REQUIRED)
find_package(Snappy REQUIRED)
find_package(ZLIB REQUIRED)
# A Debian library without a CMake package, as imported target `target`: its header and library
# (found into the cache variables <PREFIX>_INCLUDE_DIR and <PREFIX>_LIBRARY, which may be preset).
function(freshet_import_library target prefix header library)
  if(TARGET ${target})
    return()
  endif()
  find_path(${prefix}_INCLUDE_DIR ${header} REQUIRED)
  find_library(${prefix}_LIBRARY NAMES ${library} REQUIRED)
  add_library(${target} UNKNOWN IMPORTED)
  set_target_properties(${target} PROPERTIES IMPORTED_LOCATION "${${prefix}_LIBRARY}"
                        INTERFACE_INCLUDE_DIRECTORIES "${${prefix}_INCLUDE_DIR}")
endfunction()
# xxHash (Debian libxxhash-dev): the bloom-filter file index hashes strings with XXH64, as Java.
freshet_import_library(xxhash::xxhash XXHASH xxhash.h xxhash)
# libdeflate (Debian libdeflate-dev): Parquet's page CRCs with PCLMULQDQ
# (src/format/parquet_page_crc.h).
freshet_import_library(libdeflate::libdeflate LIBDEFLATE libdeflate.h deflate)
if(FRESHET_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
if(FRESHET_BUILD_BENCHMARKS)
  find_package(benchmark REQUIRED)
endif()
