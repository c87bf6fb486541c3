# A CMake toolchain file for the -sys crates that build with CMake (boring-sys): their crate
# asks for CMAKE_BUILD_TYPE=Release, whose -O3 comes after every flag the crate passes. The
# same library (the optimizer chooses no algorithm, group, suite or default) at -O1, compiled in
# less time on the fresh machine CI starts from (scripts/source_builds.py); -g0 overrides the
# -ggdb BoringSSL adds (debug information nothing here reads).
set(CMAKE_C_FLAGS_RELEASE "-O1 -g0 -DNDEBUG" CACHE STRING "" FORCE)
set(CMAKE_CXX_FLAGS_RELEASE "-O1 -g0 -DNDEBUG" CACHE STRING "" FORCE)
