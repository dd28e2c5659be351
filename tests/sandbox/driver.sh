# driver.sh: the root-side half of the differential sandbox (tests/it/sandbox).
#
# It runs as root inside namespaces that tests/it/sandbox/mod.rs created with `unshare`, and it
# never runs the command under test itself as root: that only happens inside the chroot, as uid
# 65534, below. It must never mount anything in the host's mount namespace (every mount here
# happens in a private namespace that dies with the command) and never write outside the run
# directory it is given.
#
# Two entry points, so one file serves both levels:
#   driver.sh batch RUN COUNT   for i in 0..COUNT: start `one` in fresh mount+pid namespaces
#   driver.sh one DIR           run DIR/cmd once and leave the evidence in DIR
# Settings come from the environment (the Rust side sets all of them; nothing is inherited):
#   SANDBOX_TEMPLATE  read-only lower dir of the overlay
#   SANDBOX_TIMEOUT   seconds the command may run
#   SANDBOX_SHIM_EXIT exit status of every shim
#   SANDBOX_LENIENT   non-empty: cd/pushd/popd/source never fail
#   SANDBOX_UNSHARE SANDBOX_STRACE SANDBOX_TIMEOUT_BIN SANDBOX_ENV SANDBOX_CHROOT  absolute paths
#   SANDBOX_PATH      PATH of the command
#   SANDBOX_BINDS     real-programs mode: host directories (/usr …) bound read-only at the same
#                     path in the chroot, so the real programs run; empty in shim mode
# A command's directory may hold `cwd`: the directory it starts in (default /project).
set -u

case $1 in
batch)
  run=$2 count=$3
  for ((i = 0; i < count; i++)); do
    # A fresh pid namespace per command: when `one` (its pid 1) exits, the kernel kills anything
    # the command left behind, so nothing leaks into the next command's observation.
    "$SANDBOX_UNSHARE" --mount --pid --fork --kill-child --propagation private \
      /bin/bash --norc --noprofile "$0" one "$run/$i"
  done
  ;;
one)
  d=$2
  exec 2> "$d/harness.log"
  mount -t overlay overlay -o "lowerdir=$SANDBOX_TEMPLATE,upperdir=$d/upper,workdir=$d/work" \
    "$d/merged" || exit 90
  # /proc lets bash resolve /dev/fd/N (process substitution); it shows only this pid namespace.
  mount -t proc -o nosuid,nodev,noexec proc "$d/merged/proc" || exit 91
  # Read-only: the real programs run from the host's own directories, and nothing the command
  # does can change them (writes fail with EROFS instead of landing on the host).
  for dir in ${SANDBOX_BINDS-}; do
    mount --bind "$dir" "$d/merged$dir" && mount -o remount,bind,ro "$d/merged$dir" || exit 93
  done
  cwd=/project
  [ -f "$d/cwd" ] && IFS= read -r cwd < "$d/cwd"
  # Limits for everything below. RLIMIT_NPROC binds uid 65534 only (root is exempt), which is
  # what stops a fork bomb; the file size limit also bounds the trace strace writes.
  ulimit -u 512 -f 204800 -v 4194304 -n 1024 -t 20 || exit 92
  IFS= read -r -d '' cmd < "$d/cmd"
  # strace runs here, outside the chroot and as root, so the uid-65534 command can neither see
  # nor signal nor forge it. Only execve/clone/connect stop the tracee (seccomp-bpf), which
  # keeps the cost near that of an untraced run. The outer timeout catches a command that
  # escapes the inner one's process group (`set -m; loop &`): strace would wait for it forever.
  "$SANDBOX_TIMEOUT_BIN" -s KILL $((SANDBOX_TIMEOUT + 3)) \
    "$SANDBOX_STRACE" -f -qq --seccomp-bpf -xx -s 1048576 -e signal=none \
      -e trace=execve,execveat,clone,clone3,fork,vfork,connect -o "$d/trace" \
    "$SANDBOX_TIMEOUT_BIN" -s KILL "$SANDBOX_TIMEOUT" \
    "$SANDBOX_ENV" -i PATH="$SANDBOX_PATH" HOME=/home/nobody \
      LANG=C BASH_ENV=/.sandbox/env.sh CMDGUARD_SHIM_EXIT="$SANDBOX_SHIM_EXIT" CMDGUARD_CWD="$cwd" \
      ${SANDBOX_LENIENT:+CMDGUARD_LENIENT=1} \
    "$SANDBOX_CHROOT" --userspec=65534:65534 --groups=65534 "$d/merged" \
      /bin/bash --norc --noprofile -c "$cmd" < /dev/null > "$d/stdout" 2> "$d/stderr"
  echo $? > "$d/rc"
  ;;
*)
  echo "driver.sh: unknown mode '$1'" >&2
  exit 64
  ;;
esac
