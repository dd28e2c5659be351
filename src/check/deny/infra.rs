//! check/deny/infra: infrastructure commands whose destroying half sits in another command of
//! the line — a destroy plan saved by `terraform plan -destroy -out=FILE` and applied by
//! `terraform apply FILE`, and `kubectl get KIND -o yaml | kubectl delete -f -`, which deletes
//! every object the listing printed. It only adds denies, under the pack rule the one-command
//! form matches.

use super::{program_name, skip_globals};
use crate::check::Ctx;
use crate::finding::Span;
use crate::segment::{Joiner, Nest, Word};

/// The rule a saved destroy plan's apply denies under, by program.
fn apply_destroy_rule(program: &str) -> &'static str {
    match program {
        "tofu" => "cloud/tofu-apply-destroy",
        _ => "cloud/terraform-apply-destroy",
    }
}
/// The rule a delete of everything a listing printed denies under.
const DELETE_ALL_RULE: &str = "kubernetes/kubectl-delete-all";

/// A Go flag's name and value without its one or two dashes (`-out=f`, `--out=f`).
fn go_flag(t: &str) -> Option<&str> {
    t.strip_prefix("--").or_else(|| t.strip_prefix('-'))
}

/// The values of Go's `-destroy=…` boolean flag that mean true (`strconv.ParseBool`).
const GO_TRUE: &[&str] = &["1", "t", "T", "true", "TRUE", "True"];

/// `terraform plan -destroy -out=tfplan && terraform apply tfplan`: applying a saved plan does
/// not prompt, and the plan an earlier command of the line saved with `-destroy` destroys.
pub(super) fn terraform_saved_plan(
    cx: &mut Ctx<'_>,
    i: usize,
    span: Span,
    program: &str,
    words: &[Word],
) {
    let rest = skip_globals(cx.list, program, &words[1..]);
    if rest.first().and_then(|w| w.static_text()) != Some("apply") {
        return;
    }
    let globals = &words[1..words.len() - rest.len()];
    // The plan file is apply's operand: its options are all one word (`-var=…` aside, which
    // takes its value in the next word when written `-var x=y`).
    let mut plan = None;
    let mut k = 1;
    while k < rest.len() {
        let Some(t) = rest[k].static_text() else {
            return;
        };
        if matches!(
            t,
            "-var"
                | "-var-file"
                | "-target"
                | "-replace"
                | "-state"
                | "-state-out"
                | "-backup"
                | "-lock-timeout"
                | "-parallelism"
        ) {
            k += 2;
            continue;
        }
        if !t.starts_with('-') {
            plan = Some(t);
            break;
        }
        k += 1;
    }
    let Some(plan) = plan else {
        return;
    };
    let saved = cx.script.segments[..i].iter().any(|s| {
        if s.nesting.contains(&Nest::Function) {
            return false;
        }
        let Some(first) = s.words.first().and_then(|w| w.static_text()) else {
            return false;
        };
        if program_name(first) != program {
            return false;
        }
        let theirs = skip_globals(cx.list, program, &s.words[1..]);
        let same_dir = s.words[1..s.words.len() - theirs.len()]
            .iter()
            .map(|w| &w.text)
            .eq(globals.iter().map(|w| &w.text));
        if !same_dir || theirs.first().and_then(|w| w.static_text()) != Some("plan") {
            return false;
        }
        let texts: Vec<Option<&str>> = theirs[1..].iter().map(|w| w.static_text()).collect();
        // Go's flag package takes `-flag` and `--flag` alike.
        let destroy = texts.iter().flatten().filter_map(|t| go_flag(t)).any(|t| {
            t == "destroy"
                || t.strip_prefix("destroy=")
                    .is_some_and(|v| GO_TRUE.contains(&v))
        });
        let out = texts
            .iter()
            .enumerate()
            .any(|(n, t)| match t.and_then(go_flag) {
                Some(t) => {
                    t.strip_prefix("out=") == Some(plan)
                        || (t == "out" && texts.get(n + 1).copied().flatten() == Some(plan))
                }
                None => false,
            });
        destroy && out
    });
    if saved
        && let Some(rule) = cx
            .list
            .deny
            .iter()
            .find(|r| r.id == apply_destroy_rule(program))
    {
        cx.deny(rule, span, Some(i));
    }
}

/// `kubectl get all -o yaml | kubectl delete -f -`: a delete of the objects read on its
/// input, fed by a listing of every object of the kinds named (no names, no selector), is
/// `delete KIND --all`.
pub(super) fn kubectl_deletes_listing(
    cx: &mut Ctx<'_>,
    i: usize,
    span: Span,
    program: &str,
    words: &[Word],
) {
    let rest = skip_globals(cx.list, "kubectl", &words[1..]);
    if rest.first().and_then(|w| w.static_text()) != Some("delete") {
        return;
    }
    let texts: Vec<Option<&str>> = rest[1..].iter().map(|w| w.static_text()).collect();
    let stdin = texts.iter().enumerate().any(|(n, t)| match t {
        Some("-f" | "--filename") => texts.get(n + 1).copied().flatten() == Some("-"),
        Some(t) => matches!(*t, "-f-" | "--filename=-" | "-f=-"),
        None => false,
    });
    let spared = texts.iter().flatten().any(|t| {
        matches!(*t, "-h" | "--help") || (t.starts_with("--dry-run") && *t != "--dry-run=none")
    });
    if !stdin || spared {
        return;
    }
    let segments = &cx.script.segments;
    let Some(feeder) = i.checked_sub(1).and_then(|p| segments.get(p)) else {
        return;
    };
    if feeder.joiner != Some(Joiner::Pipe) || segments[i].nesting != feeder.nesting {
        return;
    }
    let Some(first) = feeder.words.first().and_then(|w| w.static_text()) else {
        return;
    };
    if program_name(first) != program || !lists_every_object(cx, &feeder.words) {
        return;
    }
    if let Some(rule) = cx.list.deny.iter().find(|r| r.id == DELETE_ALL_RULE) {
        cx.deny(rule, span, Some(i));
    }
}

/// Whether `kubectl get KINDS -o yaml|json` prints every object of the kinds: one operand with
/// no `/` (no names), an object output format, and only namespace options besides.
fn lists_every_object(cx: &Ctx<'_>, words: &[Word]) -> bool {
    let rest = skip_globals(cx.list, "kubectl", &words[1..]);
    if rest.first().and_then(|w| w.static_text()) != Some("get") {
        return false;
    }
    let mut operands = 0;
    let mut format = false;
    let mut k = 1;
    while k < rest.len() {
        let Some(t) = rest[k].static_text() else {
            return false;
        };
        match t {
            "-o" | "--output" => {
                format = matches!(
                    rest.get(k + 1).and_then(|w| w.static_text()),
                    Some("yaml" | "json")
                );
                k += 2;
                continue;
            }
            "-oyaml" | "-ojson" | "-o=yaml" | "-o=json" | "--output=yaml" | "--output=json" => {
                format = true;
            }
            "-n" | "--namespace" => k += 1,
            "-A" | "--all-namespaces" => {}
            _ if t.starts_with("--namespace=") => {}
            _ if t.starts_with('-') => return false,
            _ if t.contains('/') => return false,
            _ => operands += 1,
        }
        k += 1;
    }
    format && operands == 1
}
