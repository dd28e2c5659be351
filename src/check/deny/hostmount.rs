//! check/deny/hostmount: `docker run` / `podman run` of a container given the host's files or
//! disks. The command after the image runs in the container; a path under a bind mount's
//! target is the host path under its source (`-v /:/host … rm -rf /host/home` removes the
//! host's `/home`), and a privileged container (or one given `/dev`) writes the host's disks.
//! The command is read with the host paths put back, and a deny found there denies. Without
//! such a mount or privilege it only touches the container and is left alone. It never
//! allows anything.

use super::{program_name, quote};
use crate::check::Ctx;
use crate::finding::Span;
use crate::segment::Word;

/// `docker run` options that take the next word as their value (podman's share the names).
const VALUE_OPTIONS: &[&str] = &[
    "-a",
    "--attach",
    "--add-host",
    "--annotation",
    "--blkio-weight",
    "--blkio-weight-device",
    "--cap-add",
    "--cap-drop",
    "--cgroup-parent",
    "--cgroupns",
    "--cidfile",
    "--cpu-period",
    "--cpu-quota",
    "--cpu-rt-period",
    "--cpu-rt-runtime",
    "-c",
    "--cpu-shares",
    "--cpus",
    "--cpuset-cpus",
    "--cpuset-mems",
    "--device",
    "--device-cgroup-rule",
    "--device-read-bps",
    "--device-read-iops",
    "--device-write-bps",
    "--device-write-iops",
    "--dns",
    "--dns-option",
    "--dns-search",
    "--domainname",
    "--entrypoint",
    "-e",
    "--env",
    "--env-file",
    "--expose",
    "--gpus",
    "--group-add",
    "--health-cmd",
    "--health-interval",
    "--health-retries",
    "--health-start-period",
    "--health-timeout",
    "-h",
    "--hostname",
    "--ip",
    "--ip6",
    "--ipc",
    "--isolation",
    "--kernel-memory",
    "-l",
    "--label",
    "--label-file",
    "--link",
    "--link-local-ip",
    "--log-driver",
    "--log-opt",
    "--mac-address",
    "-m",
    "--memory",
    "--memory-reservation",
    "--memory-swap",
    "--memory-swappiness",
    "--mount",
    "--name",
    "--network",
    "--net",
    "--network-alias",
    "--oom-score-adj",
    "--pid",
    "--pids-limit",
    "--platform",
    "-p",
    "--publish",
    "--pull",
    "--restart",
    "--runtime",
    "--security-opt",
    "--shm-size",
    "--stop-signal",
    "--stop-timeout",
    "--storage-opt",
    "--sysctl",
    "--tmpfs",
    "--ulimit",
    "-u",
    "--user",
    "--userns",
    "--uts",
    "-v",
    "--volume",
    "--volume-driver",
    "--volumes-from",
    "-w",
    "--workdir",
    "--detach-keys",
    "--pod",
];

/// Boolean `docker run` options; any other option is not read, and the command is left alone.
const FLAGS: &[&str] = &[
    "-d",
    "--detach",
    "-i",
    "--interactive",
    "-t",
    "--tty",
    "--rm",
    "--privileged",
    "-P",
    "--publish-all",
    "--init",
    "--read-only",
    "--no-healthcheck",
    "--oom-kill-disable",
    "-q",
    "--quiet",
    "--sig-proxy",
    "-it",
    "-ti",
    "-dit",
    "-itd",
    "-di",
    "-id",
    "-dt",
    "-td",
];

/// `docker|podman [container] run …` in segment `i`.
pub(super) fn command(cx: &mut Ctx<'_>, i: usize, span: Span, words: &[Word]) {
    let Some(first) = words.first().and_then(|w| w.static_text()) else {
        return;
    };
    if !matches!(program_name(first).as_ref(), "docker" | "podman") {
        return;
    }
    let mut k = 1;
    if words.get(k).and_then(|w| w.static_text()) == Some("container") {
        k += 1;
    }
    if words.get(k).and_then(|w| w.static_text()) != Some("run") {
        return;
    }
    k += 1;
    // (container target, host source text) of each bind mount.
    let mut mounts: Vec<(String, String)> = Vec::new();
    let mut privileged = false;
    while let Some(w) = words.get(k) {
        let t = w.text.as_str();
        if !t.starts_with('-') {
            break;
        }
        k += 1;
        if t == "--" {
            break;
        }
        let (name, attached) = match t.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (t, None),
        };
        if FLAGS.contains(&name) {
            privileged |= name == "--privileged";
            continue;
        }
        if !VALUE_OPTIONS.contains(&name) {
            return;
        }
        let value = match attached {
            Some(v) => v,
            None => {
                let Some(v) = words.get(k) else {
                    return;
                };
                k += 1;
                v.text.clone()
            }
        };
        match name {
            "-v" | "--volume" => {
                let mut parts = value.splitn(3, ':');
                if let (Some(src), Some(dst)) = (parts.next(), parts.next()) {
                    mounts.push((dst.to_string(), src.to_string()));
                }
            }
            "--mount" => {
                let field = |keys: &[&str]| {
                    value.split(',').find_map(|f| {
                        let (key, v) = f.split_once('=')?;
                        keys.contains(&key).then(|| v.to_string())
                    })
                };
                if let (Some(src), Some(dst)) = (
                    field(&["source", "src"]),
                    field(&["target", "destination", "dst"]),
                ) {
                    mounts.push((dst, src));
                }
            }
            "--device" => privileged = true,
            _ => {}
        }
    }
    privileged |= mounts
        .iter()
        .any(|(_, src)| src == "/dev" || src.starts_with("/dev/"));
    // The image, then the command.
    let Some(cmd) = words.get(k + 1..).filter(|c| !c.is_empty()) else {
        return;
    };
    let mut mapped = false;
    let texts: Vec<String> = cmd
        .iter()
        .map(
            |w| match w.static_text().and_then(|t| host_path(t, &mounts)) {
                Some(host) => {
                    mapped = true;
                    host
                }
                None => w.text.clone(),
            },
        )
        .collect();
    if mapped || privileged {
        super::denies_in(
            cx,
            i,
            span,
            "the command the container runs on the host's files or disks",
            &texts.join(" "),
        );
    }
}

/// A container path under a mount's target, as the host path under its source (as shell
/// text: the source as written, the rest quoted).
fn host_path(path: &str, mounts: &[(String, String)]) -> Option<String> {
    mounts.iter().find_map(|(dst, src)| {
        let dst = dst.trim_end_matches('/');
        let rest = path.strip_prefix(dst)?;
        if !(rest.is_empty() || rest.starts_with('/')) || dst.is_empty() {
            return None;
        }
        let src = src.trim_end_matches('/');
        Some(match (src.is_empty(), rest.is_empty()) {
            (true, true) => "/".to_string(),
            (_, true) => src.to_string(),
            (_, false) => format!("{src}{}", quote(rest)),
        })
    })
}
