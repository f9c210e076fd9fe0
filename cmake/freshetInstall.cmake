# `cmake --install` lays out headers, libfreshet, the CLI and a CMake package so that a downstream
# project can `find_package(freshet)` and link `freshet::freshet`.
include(CMakePackageConfigHelpers)

install(DIRECTORY include/freshet DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS freshet EXPORT freshetTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS freshet_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Arrow from the pyarrow wheel: its libraries go beside libfreshet, so that an install does not
# depend on the build machine's virtual environment (RPATHs are $ORIGIN-relative).
if(FRESHET_ARROW_BUNDLED_LIBS)
  install(FILES ${FRESHET_ARROW_BUNDLED_LIBS} DESTINATION ${CMAKE_INSTALL_LIBDIR})
endif()
install(EXPORT freshetTargets NAMESPACE freshet:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/freshet)

configure_package_config_file(cmake/freshetConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/freshetConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/freshet)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/freshetConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/freshetConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/freshetConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/freshet)
