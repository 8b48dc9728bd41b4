# Locate the ns-3 C++ SDK shipped inside the `ns3` Python wheel and repair its
# imported targets so that they can be linked from an out-of-tree project.
#
# Input:  NS3_WHEEL_DIR  - the `ns3` package directory inside site-packages
#                          (contains include/ and lib64/). Detected from
#                          ${PROJECT_SOURCE_DIR}/.venv when not given.
# Output: the ns3::<module> imported targets, usable as normal, and the
#         variable NS3_LIB_DIR (for RPATHs).
#
# The wheel's exported targets name system paths of the machine the wheel was
# built on (/usr/include/glib-2.0, /usr/lib64/libgsl.so, -lbrite, ...).  We
# keep only the wheel's own include directory and libraries.

if(NOT NS3_WHEEL_DIR)
  file(GLOB _ns3_candidates "${PROJECT_SOURCE_DIR}/.venv/lib/python3*/site-packages/ns3")
  list(LENGTH _ns3_candidates _n)
  if(_n EQUAL 0)
    message(FATAL_ERROR
      "ns-3 wheel not found. Run `make setup` (installs ns3==3.44.post0 into .venv) "
      "or pass -DNS3_WHEEL_DIR=<site-packages>/ns3.")
  endif()
  list(GET _ns3_candidates 0 NS3_WHEEL_DIR)
endif()
set(NS3_WHEEL_DIR "${NS3_WHEEL_DIR}" CACHE PATH "ns3 package directory inside site-packages")
set(NS3_LIB_DIR "${NS3_WHEEL_DIR}/lib64")
set(NS3_INCLUDE_DIR "${NS3_WHEEL_DIR}/include")

if(NOT EXISTS "${NS3_LIB_DIR}/cmake/ns3/ns3Config.cmake")
  message(FATAL_ERROR "${NS3_WHEEL_DIR} does not look like the ns3 wheel "
                      "(no lib64/cmake/ns3/ns3Config.cmake). Run `make setup`.")
endif()

find_package(ns3 3.44 EXACT CONFIG REQUIRED PATHS "${NS3_LIB_DIR}/cmake/ns3" NO_DEFAULT_PATH)

# The wheel does not ship these optional third-party libraries; nothing we
# build uses the modules that need them.
set(_ns3_missing_libs brite.so click.so nsclick openflow.so)

file(GLOB _ns3_sos RELATIVE "${NS3_LIB_DIR}" "${NS3_LIB_DIR}/libns3.44-*.so")
set(_ns3_targets "")
foreach(_so ${_ns3_sos})
  string(REGEX REPLACE "^libns3\\.44-(.*)\\.so$" "ns3::\\1" _t "${_so}")
  list(APPEND _ns3_targets "${_t}")
endforeach()
foreach(_lib ${_ns3_targets} ns3::raw-sock-creator ns3::tap-device-creator)
  if(NOT TARGET ${_lib})
    continue()
  endif()
  set_target_properties(${_lib} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${NS3_INCLUDE_DIR}")
  get_target_property(_links ${_lib} INTERFACE_LINK_LIBRARIES)
  if(_links)
    set(_fixed "")
    foreach(_l ${_links})
      if(_l MATCHES "^/usr/lib64/" OR _l MATCHES "^/lib64/")
        continue()
      endif()
      list(FIND _ns3_missing_libs "${_l}" _idx)
      if(NOT _idx EQUAL -1)
        continue()
      endif()
      list(APPEND _fixed "${_l}")
    endforeach()
    set_target_properties(${_lib} PROPERTIES INTERFACE_LINK_LIBRARIES "${_fixed}")
  endif()
  set_property(TARGET ${_lib} APPEND PROPERTY INTERFACE_LINK_DIRECTORIES "${NS3_LIB_DIR}")
endforeach()

set(CMAKE_BUILD_RPATH "${NS3_LIB_DIR};${CMAKE_BINARY_DIR}")
set(CMAKE_INSTALL_RPATH "${NS3_LIB_DIR}")
