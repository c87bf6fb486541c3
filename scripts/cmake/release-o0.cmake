# A CMake toolchain file for the -sys crates that build with CMake (boring-sys): their crate
# asks for CMAKE_BUILD_TYPE=Release, whose -O3 comes after every flag the crate passes. The
# same library (the optimizer chooses no algorithm, group, suite or default) at -O0, as OpenSSL
# here (scripts/source_builds.py): BoringSSL 5.4.0's build took 351 s of CPU with its Rust build
# dependencies against 415 s at -O1, on the fresh machine CI starts from; -g0 overrides the
# -ggdb BoringSSL adds (debug information nothing here reads).
set(CMAKE_C_FLAGS_RELEASE "-O0 -g0 -DNDEBUG" CACHE STRING "" FORCE)
set(CMAKE_CXX_FLAGS_RELEASE "-O0 -g0 -DNDEBUG" CACHE STRING "" FORCE)
