//! Session 9's red team of the deny packs (issue 12). In an agent's auto-accept mode `ask` runs
//! the command, so a command that surely destroys must deny. Each test pins one finding of
//! `/work/notes/redteam-s9-deny.jsonl` (same name there): HIGH rows are destroying commands that
//! only ask today and must deny; MEDIUM rows are harmless forms (help, dry runs, nothing
//! persistent) that deny today and must not. Ground truth is real bash and the real program
//! where installed (sqlite3, kubectl 1.32, python3), otherwise the program's documented grammar.
//! The lead kept here 20 of the red team's 93 tests: those that pass after this session's fixes and
//! that no fixer copied (10 are in redteam_deny_fixes_s9_sql.rs), unchanged; the 63 still failing
//! stay on branch `reddeny` (closing note, session 9).

use cmdguard::{Analyzer, Verdict};

/// Every command must deny.
pub(crate) fn must_deny(cmds: &[&str]) {
    let analyzer = Analyzer::default();
    let failures: Vec<String> = cmds
        .iter()
        .map(|cmd| (cmd, analyzer.analyze(cmd).verdict))
        .filter(|(_, verdict)| *verdict != Verdict::Deny)
        .map(|(cmd, verdict)| format!("{cmd:?}: want deny, got {verdict}"))
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// No command may deny.
pub(crate) fn must_not_deny(cmds: &[&str]) {
    let analyzer = Analyzer::default();
    let failures: Vec<String> = cmds
        .iter()
        .map(|cmd| (cmd, analyzer.analyze(cmd).verdict))
        .filter(|(_, verdict)| *verdict == Verdict::Deny)
        .map(|(cmd, verdict)| format!("{cmd:?}: want allow or ask, got {verdict}"))
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

// ---- HIGH: core.filesystem ------------------------------------------------------------------

#[test]
fn parallel_quoted_command_string() {
    must_deny(&[
        "parallel -j1 'rm -rf {}' ::: v",
        "parallel -j4 'rm -rf {}' ::: v",
        "parallel -P4 'rm -rf {}' ::: v",
    ]);
}

// ---- HIGH: system --------------------------------------------------------------------------

// ---- HIGH: cloud ---------------------------------------------------------------------------

#[test]
fn aws_global_flags_and_negated_dry_run() {
    must_deny(&[
        "aws --no-cli-auto-prompt s3 rb s3://b",
        "aws ec2 delete-volume --volume-id v --dry-run --no-dry-run",
    ]);
}

#[test]
fn aws_verb_rule_misses_data_stores() {
    must_deny(&[
        "aws logs delete-log-group --log-group-name g",
        "aws sqs delete-queue --queue-url q",
        "aws glue delete-database --name d",
        "aws cognito-idp delete-user-pool --user-pool-id p",
        "aws elasticbeanstalk terminate-environment --environment-name e",
        "aws rds delete-global-cluster --global-cluster-identifier g",
        "aws cloudformation delete-stack-set --stack-set-name s",
        "aws s3control delete-bucket --account-id 1 --bucket b",
        "aws timestream-write delete-database --database-name d",
        "aws dynamodb delete-backup --backup-arn a",
        "aws apigateway delete-rest-api --rest-api-id r",
    ]);
}

#[test]
fn gcloud_flags_between_groups() {
    must_deny(&[
        "gcloud compute --project=p instances delete vm --zone z",
        "gcloud compute --project p instances delete vm",
        "gcloud --no-user-output-enabled projects delete p",
        "gcloud --user-output-enabled=false projects delete p",
    ]);
}

#[test]
fn gcloud_release_track_storage_rm() {
    must_deny(&[
        "gcloud alpha storage rm -r gs://b",
        "gcloud beta storage rm -r gs://b",
    ]);
}

#[test]
fn bq_and_stack_tools_destroy() {
    must_deny(&[
        "bq rm -r -f -d proj:ds",
        "eksctl delete cluster --name prod",
        "cdk destroy --force",
        "npx cdk destroy --all --force",
        "serverless remove --stage prod",
        "sls remove",
        "pulumi stack rm prod --force --yes",
    ]);
}

// ---- HIGH: kubernetes, containers ------------------------------------------------------------

#[test]
fn kubectl_multicall_spellings() {
    must_deny(&[
        "k3s kubectl delete ns x",
        "microk8s.kubectl delete ns x",
        "minikube kubectl -- delete ns x",
    ]);
}

#[test]
fn compose_v1_options_first_and_other_engines() {
    must_deny(&[
        "docker-compose -f a.yml down -v",
        "docker-compose -p x down -v",
        "docker-compose --project-name x down --volumes",
        "nerdctl volume rm data",
        "finch volume rm data",
    ]);
}

// ---- HIGH: databases -----------------------------------------------------------------------

// ---- HIGH: interpreters --------------------------------------------------------------------

// ---- MEDIUM: false denies --------------------------------------------------------------------

#[test]
fn dry_run_forms_denied() {
    must_not_deny(&[
        "kubectl delete ns x --dry-run",
        "kubectl delete ns x --dry-run=true",
        "kubectl delete pods --all --dry-run",
        "kubectl apply --prune --all -f . --dry-run",
        "kubectl drain n1 --dry-run",
        "aws ec2 terminate-instances --instance-ids i-1 --dry-run",
    ]);
}

#[test]
fn mkfs_on_image_file_denied() {
    must_not_deny(&[
        "mkfs.ext4 disk.img",
        "mkfs.ext4 -F ./disk.img",
        "mkfs.vfat img.bin",
    ]);
}

// ---- HIGH: core.git ------------------------------------------------------------------------

#[test]
fn git_reset_shortest_abbreviation() {
    must_deny(&["git reset --h", "git reset --h HEAD~1"]);
}

// ---- HIGH: shell side doors ------------------------------------------------------------------

#[test]
fn kubectl_delete_of_listed_names() {
    must_deny(&[
        "kubectl get ns -o name | xargs kubectl delete",
        "kubectl delete $(kubectl get ns -o name)",
        "kubectl get pods -o name | xargs kubectl delete",
        "kubectl delete -n x $(kubectl get pods -o name -n x)",
    ]);
}

#[test]
fn ifs_word_splitting() {
    must_deny(&[
        "rm${IFS}-rf${IFS}v",
        "rm${IFS}-rf${IFS}/",
        "git${IFS}reset${IFS}--hard",
        "rm ${IFS}-rf v",
    ]);
}

#[test]
fn awk_program_other_spellings() {
    must_deny(&[
        r#"gawk --source='BEGIN{system("rm -rf v")}'"#,
        r#"awk -f <(echo 'BEGIN{system("rm -rf v")}')"#,
    ]);
}

// ---- MEDIUM: more false denies -------------------------------------------------------------

#[test]
fn compose_rm_volumes_other_binaries() {
    must_deny(&[
        "docker-compose rm -fsv",
        "docker-compose rm -f -s -v",
        "podman-compose down -v",
    ]);
}

#[test]
fn crontab_replaced_by_empty() {
    must_deny(&[
        "crontab /dev/null",
        "crontab < /dev/null",
        "echo | crontab -",
        ": | crontab -",
    ]);
}

#[test]
fn trap_with_expanded_home() {
    must_deny(&[r#"trap "rm -rf $HOME" EXIT"#]);
}

#[test]
fn other_shells_dash_c() {
    must_deny(&[
        "fish -c 'rm -rf v'",
        "mksh -c 'rm -rf v'",
        "yash -c 'rm -rf v'",
        "tcsh -c 'rm -rf v'",
        "csh -c 'rm -rf v'",
        "nu -c 'rm -rf v'",
        "xonsh -c 'rm -rf v'",
        "elvish -c 'rm -rf v'",
    ]);
}

#[test]
fn parallel_as_xargs_rm() {
    must_deny(&[
        "find . -type f | parallel rm",
        "find . -type f | parallel -X rm",
    ]);
}

#[test]
fn mktemp_backquote_form_denied() {
    must_not_deny(&[r#"tmp=`mktemp -d`; rm -rf "$tmp""#]);
}
