# Locates Arrow C++ (with Parquet and the ORC adapter) and defines freshet::arrow and
# freshet::parquet. Order of preference:
#   1. an Arrow install that find_package() finds (ArrowConfig.cmake / ParquetConfig.cmake);
#   2. the PyPI pyarrow wheel, which ships the C++ headers and shared libraries: FRESHET_PYARROW_DIR
#      (the wheel's package directory), or the one of the Python in FRESHET_PYTHON.
# Sets FRESHET_ARROW_LIB_DIR to the directory holding the shared libraries (for build-tree
# RPATHs) and, for the wheel, FRESHET_ARROW_BUNDLED_LIBS (installed with freshet).
if(TARGET freshet::arrow)
  return()
endif()

set(FRESHET_PYARROW_DIR "" CACHE PATH "pyarrow package directory to take Arrow C++ from")
set(FRESHET_PYTHON "" CACHE FILEPATH "Python whose pyarrow provides Arrow C++")

if(NOT FRESHET_PYARROW_DIR)
  find_package(Arrow CONFIG QUIET)
  find_package(Parquet CONFIG QUIET)
endif()

if(Arrow_FOUND AND Parquet_FOUND)
  add_library(freshet::arrow INTERFACE IMPORTED)
  target_link_libraries(freshet::arrow INTERFACE Arrow::arrow_shared)
  add_library(freshet::parquet INTERFACE IMPORTED)
  target_link_libraries(freshet::parquet INTERFACE Parquet::parquet_shared)
  get_target_property(_arrow_loc Arrow::arrow_shared LOCATION)
  get_filename_component(FRESHET_ARROW_LIB_DIR "${_arrow_loc}" DIRECTORY)
  message(STATUS "freshet: Arrow ${Arrow_VERSION} from find_package (${FRESHET_ARROW_LIB_DIR})")
  return()
endif()

if(NOT FRESHET_PYARROW_DIR)
  if(NOT FRESHET_PYTHON)
    foreach(_candidate "${CMAKE_CURRENT_LIST_DIR}/../.venv/bin/python"
                       "${PROJECT_SOURCE_DIR}/.venv/bin/python")
      if(EXISTS "${_candidate}")
        set(FRESHET_PYTHON "${_candidate}")
        break()
      endif()
    endforeach()
  endif()
  if(NOT FRESHET_PYTHON)
    message(FATAL_ERROR
      "freshet needs Arrow C++ with Parquet. Either install Arrow so that find_package(Arrow) works, "
      "or run scripts/setup.sh (installs the pyarrow wheel into .venv), or pass "
      "-DFRESHET_PYARROW_DIR=<site-packages>/pyarrow.")
  endif()
  execute_process(
    COMMAND "${FRESHET_PYTHON}" -c "import pyarrow, os; print(os.path.dirname(pyarrow.__file__))"
    OUTPUT_VARIABLE FRESHET_PYARROW_DIR OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _rc)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "freshet: '${FRESHET_PYTHON}' cannot import pyarrow; run scripts/setup.sh")
  endif()
endif()

file(GLOB _libarrow "${FRESHET_PYARROW_DIR}/libarrow.so.[0-9]*")
file(GLOB _libparquet "${FRESHET_PYARROW_DIR}/libparquet.so.[0-9]*")
list(FILTER _libarrow EXCLUDE REGEX "\\.so\\.[0-9]+\\.")
list(FILTER _libparquet EXCLUDE REGEX "\\.so\\.[0-9]+\\.")
if(NOT _libarrow OR NOT _libparquet OR NOT EXISTS "${FRESHET_PYARROW_DIR}/include/arrow/api.h")
  message(FATAL_ERROR "freshet: no Arrow C++ headers/libraries under '${FRESHET_PYARROW_DIR}'")
endif()
list(GET _libarrow 0 _libarrow)
list(GET _libparquet 0 _libparquet)

# The wheel is built with the new libstdc++ ABI; refuse a mismatch instead of failing at link time.
file(STRINGS "${FRESHET_PYARROW_DIR}/include/arrow/util/config.h" _arrow_version_line
     REGEX "#define ARROW_VERSION_STRING")
string(REGEX REPLACE ".*\"([^\"]+)\".*" "\\1" FRESHET_ARROW_VERSION "${_arrow_version_line}")
file(STRINGS "${FRESHET_PYARROW_DIR}/include/arrow/util/config.h" _arrow_orc REGEX "#define ARROW_ORC")
if(NOT _arrow_orc)
  message(FATAL_ERROR "freshet: the Arrow under '${FRESHET_PYARROW_DIR}' lacks the ORC adapter")
endif()

foreach(_lib arrow parquet)
  add_library(freshet::${_lib} SHARED IMPORTED)
  set_target_properties(freshet::${_lib} PROPERTIES
    IMPORTED_LOCATION "${_lib${_lib}}"
    INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${FRESHET_PYARROW_DIR}/include"
    INTERFACE_INCLUDE_DIRECTORIES "${FRESHET_PYARROW_DIR}/include")
endforeach()
set_property(TARGET freshet::parquet PROPERTY INTERFACE_LINK_LIBRARIES freshet::arrow)
set(FRESHET_ARROW_LIB_DIR "${FRESHET_PYARROW_DIR}")
# The wheel's libraries are installed beside libfreshet (cmake/freshetInstall.cmake).
set(FRESHET_ARROW_BUNDLED_LIBS "${_libarrow};${_libparquet}")
message(STATUS "freshet: Arrow ${FRESHET_ARROW_VERSION} from the pyarrow wheel at ${FRESHET_PYARROW_DIR}")
