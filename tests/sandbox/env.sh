# env.sh: BASH_ENV of the sandboxed bash (installed as /.sandbox/env.sh in the template).
#
# Runs before the command, inside the chroot as uid 65534. It may only make the run observable
# (cwd, a not-found hook) and, in lenient mode, keep `cd dir && …` chains going; it must never
# change what the command itself would execute.
cd "${CMDGUARD_CWD:-/project}" || exit 97
# bash calls this in the forked child that would have run an unknown command; exec'ing a marker
# binary makes the attempt visible to strace with its full argv. Exported so that nested
# `bash -c` children report their unknown commands too.
command_not_found_handle() { exec /.sandbox/notfound "$@"; }
export -f command_not_found_handle
if [ -n "${CMDGUARD_LENIENT-}" ]; then
  # The template has only a small project tree, so `cd some/dir && git status` would stop at
  # cd. In lenient mode these never fail, so the rest of the chain is observed.
  cd() { builtin cd "$@" 2> /dev/null; return 0; }
  pushd() { builtin pushd "$@" > /dev/null 2>&1; return 0; }
  popd() { builtin popd "$@" > /dev/null 2>&1; return 0; }
  source() { builtin source "$@" 2> /dev/null; return 0; }
fi
unset BASH_ENV CMDGUARD_LENIENT CMDGUARD_CWD
