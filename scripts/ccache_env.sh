# Sourced by the build scripts: compile through ccache where it is installed (scripts/setup.sh
# installs it), so a second build of the same sources, in this checkout or another clone (CI's),
# takes its objects from ~/.cache/ccache instead of compiling them again. Sets ccache_args for
# CMake's configure step and the environment for the build step. ONYX_CCACHE=0 turns it off.
ccache_args=()
if [ "${ONYX_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
  ccache_args=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache
               -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  # Paths under the checkout hash as relative ones, so that clones in other folders share objects.
  export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$(pwd)}"
  export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
  export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-12G}"  # the release and sanitizer builds, with room
fi
