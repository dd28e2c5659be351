//! Session 9's red team of the deny packs (issue 12): the cloud, HTTP, package-manager and SQL
//! findings that were still open when its passing tests were harvested. In an agent's auto-accept
//! mode `ask` runs the command, so a command that surely destroys must deny. Each test pins one
//! finding of `/work/notes/redteam-s9-deny.jsonl` (same name there): HIGH rows are destroying
//! commands that only asked and must deny; MEDIUM rows are harmless forms (help, nothing
//! persistent) that denied and must not. Copied unchanged from branch `reddeny`.

use cmdguard::{Analyzer, Verdict};

/// Every command must deny.
fn must_deny(cmds: &[&str]) {
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
fn must_not_deny(cmds: &[&str]) {
    let analyzer = Analyzer::default();
    let failures: Vec<String> = cmds
        .iter()
        .map(|cmd| (cmd, analyzer.analyze(cmd).verdict))
        .filter(|(_, verdict)| *verdict == Verdict::Deny)
        .map(|(cmd, verdict)| format!("{cmd:?}: want allow or ask, got {verdict}"))
        .collect();
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

#[test]
fn helm_uninstall_every_release() {
    must_deny(&[
        "helm ls -q | xargs helm uninstall",
        "helm list -q -A | xargs -n1 helm uninstall",
        "helm uninstall $(helm ls -q)",
        "helm delete $(helm list --short)",
    ]);
}

#[test]
fn kubectl_selector_matching_everything() {
    must_deny(&[
        "kubectl delete pods --selector='!nonexistent'",
        "kubectl delete pods -l 'app!=nonexistent'",
        "kubectl delete pvc -l 'x notin (y)'",
        "kubectl delete pods --field-selector metadata.name!=x",
    ]);
}

#[test]
fn oc_and_yaml_roundtrip_deletes() {
    must_deny(&[
        "oc delete all --all",
        "oc adm drain n1",
        "kubectl get all -o yaml | kubectl delete -f -",
        "kubectl get ns -o yaml | kubectl delete -f -",
    ]);
}

#[test]
fn iac_destroy_and_replace_siblings() {
    must_deny(&[
        "cdktf destroy --auto-approve",
        "pulumi up --yes --replace urn:x",
        "pulumi up --yes --target-replace urn:x",
    ]);
}

#[test]
fn terraform_destroy_other_spellings() {
    must_deny(&[
        "TF_CLI_ARGS=-destroy terraform apply -auto-approve",
        "TF_CLI_ARGS_apply=-destroy terraform apply -auto-approve",
        "terraform apply -auto-approve -destroy=TRUE",
        "terraform apply -auto-approve -destroy=1",
        "terraform apply -auto-approve -destroy=t",
        "terraform plan -destroy -out=tfplan && terraform apply tfplan",
        "terraform plan -destroy -out tfplan; terraform apply -auto-approve tfplan",
        "terragrunt --non-interactive destroy",
        "pulumi -C infra destroy --yes",
        "pulumi --cwd infra destroy --yes",
    ]);
}

#[test]
fn gh_api_delete_other_spellings() {
    must_deny(&[
        "gh api -X DELETE https://api.github.com/repos/o/r",
        "gh api -X DELETE repos/o/r/git/refs/heads/main",
        "glab api -X DELETE projects/1",
    ]);
}

#[test]
fn http_delete_of_everything() {
    must_deny(&[
        r#"curl -X DELETE https://api.github.com/repos/o/r -H "Authorization: token $T""#,
        "curl -XDELETE https://api.github.com/repos/o/r",
        "curl --request DELETE https://api.github.com/repos/o/r",
        "http DELETE api.github.com/repos/o/r",
        "wget --method=DELETE https://api.github.com/repos/o/r",
        "curl -X DELETE 'http://localhost:9200/_all'",
        "curl -X DELETE http://localhost:9200/*",
    ]);
}

#[test]
fn object_store_tools_bulk_delete() {
    must_deny(&[
        "rclone purge remote:bucket",
        "rclone delete remote:bucket",
        "s3cmd rb --recursive s3://b",
        "s3cmd del --recursive --force s3://b",
        "mc rb --force local/b",
        "mc rm --recursive --force local/b",
        "azcopy rm 'https://a.blob.core.windows.net/c' --recursive",
    ]);
}

#[test]
fn package_manager_global_options_first() {
    must_deny(&[
        "cargo +nightly yank x@1.0.0",
        "cargo --locked yank x@1.0.0",
        "npm --registry=https://r unpublish x -f",
        "dotnet nuget delete X 1.0 -k K --non-interactive",
        "nuget delete X 1.0 -ApiKey K -NonInteractive",
        "skopeo delete docker://r/x:latest",
        "crane delete r/x:latest",
    ]);
}

#[test]
fn help_forms_denied() {
    must_not_deny(&[
        "gcloud projects delete --help",
        "gcloud projects delete -h",
        "gcloud compute instances delete --help",
        "aws s3 rb help",
        "aws s3 rb s3://b help",
        "aws ec2 terminate-instances help",
        "aws rds delete-db-instance help",
        "az group delete -h",
        "az group delete --help",
        "pulumi destroy --help",
        "docker volume rm --help",
        "docker volume rm -h",
        "dropdb --help",
        "redis-cli --help flushall",
        "mongosh --eval 'db.c.deleteMany({}, {writeConcern: {w: 0}})' --help",
        "mongosh --eval 'db.c.explain().remove({})'",
        "psql --help -c 'drop table t'",
        "dd --help of=/dev/sda",
        "rm --version -rf /",
    ]);
}

#[test]
fn generated_sql_piped_into_client() {
    must_deny(&[
        r#"psql -Atc "select 'drop table ' || tablename || ';' from pg_tables where schemaname='public'" | psql"#,
        r#"psql -c "SELECT 'DROP TABLE ' || tablename FROM pg_tables" -t | psql"#,
        r#"mysql -N -e "SELECT CONCAT('DROP TABLE ', table_name, ';') FROM information_schema.tables" | mysql"#,
        r#"sqlite3 db "select 'drop table ' || name || ';' from sqlite_master where type='table'" | sqlite3 db"#,
    ]);
}

#[test]
fn heredoc_runtime_where_value_denied() {
    must_not_deny(&["psql db <<EOF\nDELETE FROM users WHERE id = $ID;\nEOF"]);
}

#[test]
fn mongosh_filters_matching_everything() {
    must_deny(&[
        "mongosh --eval 'db.c.deleteMany({name: /.*/})'",
        "mongosh --eval 'db.c.deleteMany({name: {$regex: /^/}})'",
        r#"mongosh --eval 'db.c.deleteMany({_id: {$regex: ""}})'"#,
        r#"mongosh --eval 'db.c.deleteMany({_id: {$gt: ObjectId("000000000000000000000000")}})'"#,
        "mongosh --eval 'db.c.deleteMany({_id: {$gte: MinKey()}})'",
        "mongosh --eval 'db.c.deleteMany(Object())'",
        "mongosh --eval 'db.c.deleteMany(new Object())'",
        r#"mongosh --eval 'db.c.deleteMany(JSON.parse("{}"))'"#,
    ]);
}

#[test]
fn mysql_double_dash_not_a_comment() {
    must_deny(&["mysql -e 'DELETE FROM t WHERE id=1--1 OR 1'"]);
}

#[test]
fn redis_cli_flags_unknown_and_replicaof() {
    must_deny(&[
        "redis-cli -h prod -a x --tls FLUSHDB",
        "redis-cli --cacert ca.pem --tls flushall",
        "redis-cli -t 5 flushall",
        "redis-cli REPLICAOF host 6379",
        "redis-cli SLAVEOF host 6379",
    ]);
}

#[test]
fn sql_bodies_run_later() {
    must_deny(&[
        "psql -c 'PREPARE p AS DELETE FROM t; EXECUTE p'",
        r#"psql -c "CREATE OR REPLACE FUNCTION f() RETURNS void AS 'DROP TABLE t' LANGUAGE sql; SELECT f()""#,
        r#"psql -c "SELECT dblink_exec('dbname=x', 'DROP TABLE t')""#,
    ]);
}

#[test]
fn sql_on_nothing_persistent_denied() {
    must_not_deny(&[
        "sqlite3 :memory: 'drop table if exists t'",
        "sqlite3 :memory: 'create table t(a); delete from t'",
        "psql -c 'create temp table x(a int); drop table x'",
    ]);
}

#[test]
fn sql_rolled_back_transaction() {
    must_not_deny(&[
        "psql -c 'BEGIN; DELETE FROM t; ROLLBACK'",
        "sqlite3 db 'BEGIN; DELETE FROM t; ROLLBACK;'",
    ]);
}

#[test]
fn sql_text_from_substitutions_in_stdin() {
    must_deny(&[
        "mysql db <<< \"$(cat <<'EOF'\ndrop table t;\nEOF\n)\"",
        "psql db <<EOF\n$(echo drop table t)\nEOF",
        "psql db <<-'EOF'\ndrop table t;\nEOF",
    ]);
}

#[test]
fn sqlite3_runtime_database_operand() {
    must_deny(&[
        r#"sqlite3 "$DB" 'DELETE FROM t'"#,
        "sqlite3 $1 'drop table t'",
        r#"for db in *.db; do sqlite3 "$db" 'DELETE FROM t'; done"#,
    ]);
}

#[test]
fn written_sql_file_fed_by_redirect() {
    must_deny(&[
        "echo 'drop table t;' > x.sql; mysql db < x.sql",
        "cat > x.sql <<'EOF'\ndrop table t;\nEOF\nsqlite3 db < x.sql",
        "echo 'drop table t;' > x.sql; sqlite3 db '.read x.sql'",
        "echo 'db.dropDatabase()' > x.js; mongosh x.js",
        "echo 'db.dropDatabase()' > x.js; mongosh --file x.js",
        "printf 'FLUSHALL\\n' > x.txt; redis-cli < x.txt",
    ]);
}
