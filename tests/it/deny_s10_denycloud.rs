//! Session 10's fixes (helper denycloud) for the red team's cloud, HTTP, package-manager and
//! SQL rows: one table per fix, each with the forms that deny (and the rule they deny under)
//! beside the near misses that must not. `None` means "not denied".

use super::packs::denies;

#[test]
fn api_deletes_of_repositories_by_url_and_refs_deny() {
    let gh = Some("cloud/gh-api-delete-url-or-ref");
    let glab = Some("cloud/glab-api-delete-project-or-group");
    denies(&[
        ("gh api -X DELETE https://api.github.com/repos/o/r", gh),
        ("gh api --method DELETE repos/o/r/git/refs/heads/main", gh),
        ("sudo gh api -XDELETE https://api.github.com/orgs/o", gh),
        ("glab api -X DELETE projects/1", glab),
        ("glab api --method=DELETE groups/g", glab),
        ("gh api https://api.github.com/repos/o/r", None),
        ("gh api -X DELETE repos/o/r/git/refs/tags", None),
        ("gh api -X PATCH repos/o/r/git/refs/heads/main", None),
        ("glab api -X DELETE projects/1/issues/2", None),
        ("echo glab api -X DELETE projects/1", None),
    ]);
}

#[test]
fn http_clients_deleting_a_repository_or_every_index_deny() {
    let curl = Some("cloud/curl-delete-everything");
    let wget = Some("cloud/wget-delete-everything");
    let httpie = Some("cloud/httpie-delete-everything");
    denies(&[
        ("curl -X DELETE https://api.github.com/repos/o/r", curl),
        (
            "curl -sS --request=DELETE https://api.github.com/repos/o/r/",
            curl,
        ),
        ("curl -XDELETE 'http://es:9200/_all?pretty'", curl),
        (
            "curl -X DELETE https://gitlab.example.com/api/v4/projects/5",
            curl,
        ),
        ("wget --method=DELETE http://localhost:9200/_all", wget),
        ("http DELETE :9200/_all", httpie),
        ("xh DELETE https://api.github.com/orgs/o", httpie),
        ("curl -X DELETE http://localhost:9200/logs-2024.01", None),
        ("curl -X DELETE http://localhost:3000/api/items/7", None),
        ("curl https://api.github.com/repos/o/r", None),
        ("curl -X POST 'http://es:9200/_all/_refresh'", None),
        ("http GET :9200/_all", None),
        ("wget http://localhost:9200/_all", None),
    ]);
}

#[test]
fn object_store_bulk_deletes_deny_and_dry_runs_do_not() {
    denies(&[
        ("rclone purge remote:bucket", Some("cloud/rclone-purge")),
        ("rclone delete remote:bucket", Some("cloud/rclone-purge")),
        (
            "s3cmd rb --recursive s3://b",
            Some("cloud/s3cmd-recursive-delete"),
        ),
        (
            "mc rm --recursive --force local/b",
            Some("cloud/mc-recursive-delete"),
        ),
        (
            "azcopy rm https://a.blob.core.windows.net/c --recursive",
            Some("cloud/azcopy-rm-recursive"),
        ),
        (
            "azcopy remove https://a.blob.core.windows.net/c --recursive=true",
            Some("cloud/azcopy-rm-recursive"),
        ),
        ("rclone purge --dry-run remote:bucket", None),
        ("rclone copy remote:bucket ./backup", None),
        ("s3cmd del s3://b/one.txt", None),
        ("mc rm local/b/one.txt", None),
        ("azcopy rm https://a.blob.core.windows.net/c/one.txt", None),
        (
            "azcopy rm https://a.blob.core.windows.net/c --recursive --dry-run",
            None,
        ),
        (
            "azcopy rm https://a.blob.core.windows.net/c --recursive=false",
            None,
        ),
        (
            "azcopy copy https://a.blob.core.windows.net/c . --recursive",
            None,
        ),
    ]);
}

#[test]
fn iac_siblings_destroy_and_replace_deny() {
    let plan = Some("cloud/terraform-apply-destroy");
    denies(&[
        ("cdktf destroy --auto-approve", Some("cloud/cdktf-destroy")),
        (
            "pulumi up --yes --replace urn:x",
            Some("cloud/pulumi-up-replace"),
        ),
        (
            "pulumi up -y --target-replace=urn:x",
            Some("cloud/pulumi-up-replace"),
        ),
        (
            "terraform plan -destroy -out=tfplan && terraform apply tfplan",
            plan,
        ),
        (
            "terraform plan --destroy=true -out tfplan; terraform apply -auto-approve tfplan",
            plan,
        ),
        (
            "tofu plan -destroy -out=p.bin && tofu apply p.bin",
            Some("cloud/tofu-apply-destroy"),
        ),
        ("cdktf destroy --help", None),
        ("pulumi up --replace urn:x", None),
        ("pulumi up --yes", None),
        ("terraform plan -out=tfplan && terraform apply tfplan", None),
        ("terraform plan -destroy -out=a && terraform apply b", None),
        (
            "terraform plan -destroy=false -out=tfplan && terraform apply tfplan",
            None,
        ),
        (
            "terraform -chdir=a plan -destroy -out=p && terraform -chdir=b apply p",
            None,
        ),
    ]);
}

#[test]
fn kubernetes_deletes_of_everything_by_selector_listing_or_yaml_deny() {
    let selector = Some("kubernetes/kubectl-delete-negative-selector");
    let all = Some("kubernetes/kubectl-delete-all");
    let helm = Some("kubernetes/helm-uninstall-every-release");
    denies(&[
        ("kubectl delete pods --selector='!nonexistent'", selector),
        ("kubectl delete pods -l 'a!=x,b notin (y, z)'", selector),
        ("oc delete pvc -l '!keep'", selector),
        (
            "kubectl delete pods --field-selector metadata.name!=x",
            selector,
        ),
        ("kubectl get all -o yaml | kubectl delete -f -", all),
        (
            "kubectl get deploy -A -ojson | kubectl delete --filename=-",
            all,
        ),
        ("oc get all -o yaml | oc delete -f -", all),
        ("helm ls -q | xargs helm uninstall", helm),
        ("helm uninstall -n x $(helm ls -q -n x)", helm),
        ("kubectl delete pods -l app=web", None),
        ("kubectl delete pods -l 'app=web,tier!=db'", None),
        ("kubectl delete pods -l 'x in (y)'", None),
        (
            "kubectl delete pods --field-selector status.phase=Failed",
            None,
        ),
        (
            "kubectl get pods -l app=web -o yaml | kubectl delete -f -",
            None,
        ),
        ("kubectl get pod web -o yaml | kubectl delete -f -", None),
        (
            "kubectl get all -o yaml | kubectl delete -f - --dry-run=client",
            None,
        ),
        ("kubectl get all -o wide | kubectl delete -f -", None),
        ("kustomize build . | kubectl delete -f -", None),
        ("helm uninstall web", None),
        ("helm ls -q | xargs helm status", None),
        ("helm uninstall $(helm ls -q --filter web)", None),
    ]);
}

#[test]
fn registry_deletes_and_options_before_the_subcommand_deny() {
    denies(&[
        (
            "cargo +nightly yank x@1.0.0",
            Some("package_managers/cargo-yank"),
        ),
        (
            "cargo +1.80 --locked yank --version 1.0.0",
            Some("package_managers/cargo-yank"),
        ),
        (
            "dotnet nuget delete X 1.0 -k K --non-interactive",
            Some("package_managers/dotnet-nuget-delete"),
        ),
        (
            "nuget delete X 1.0 -ApiKey K -NonInteractive",
            Some("package_managers/nuget-delete"),
        ),
        (
            "skopeo delete docker://r/x:latest",
            Some("package_managers/skopeo-delete"),
        ),
        (
            "crane delete r/x:latest",
            Some("package_managers/crane-delete"),
        ),
        ("cargo +nightly build", None),
        ("cargo +nightly yank --undo x@1.0.0", None),
        ("dotnet nuget push X.nupkg", None),
        ("skopeo copy docker://a docker://b", None),
        ("crane delete --help", None),
    ]);
}

#[test]
fn redis_cli_options_before_the_command_and_replicaof() {
    let flush = Some("databases/redis-flush");
    let replica = Some("databases/redis-replicaof");
    denies(&[
        ("redis-cli -h prod -a x --tls FLUSHDB", flush),
        ("redis-cli --cacert ca.pem --tls flushall", flush),
        ("redis-cli -t 5 flushall", flush),
        ("redis-cli --tls-ciphers X flushall", flush),
        ("redis-cli REPLICAOF host 6379", replica),
        ("valkey-cli -h a SLAVEOF host 6379", replica),
        ("printf 'FLUSHALL\\n' > x.txt; redis-cli < x.txt", flush),
        ("redis-cli --tls get flushall", None),
        ("redis-cli --help flushall", None),
        ("redis-cli REPLICAOF NO ONE", None),
        ("redis-cli GET replicaof", None),
        ("printf 'GET k\\n' > x.txt; redis-cli < x.txt", None),
    ]);
}

#[test]
fn help_and_version_forms_run_nothing() {
    denies(&[
        ("dropdb --help", None),
        ("dropdb -V app", None),
        ("psql --help -c 'drop table t'", None),
        ("psql -c 'drop table t' '-?'", None),
        ("mysql -e 'drop table t' --version", None),
        ("mongosh --eval 'db.dropDatabase()' --help", None),
        ("dd --help of=/dev/sda", None),
        ("rm --version -rf /", None),
        ("dropdb app", Some("databases/dropdb")),
        (
            "psql -c 'drop table t' -- --help",
            Some("databases/destructive-sql"),
        ),
        (
            "mysql -h db -e 'drop table t'",
            Some("databases/destructive-sql"),
        ),
        ("dd if=x of=/dev/sda", Some("system/dd-to-device")),
        (
            "rm -rf x -- --version",
            Some("core.filesystem/rm-recursive"),
        ),
    ]);
}

#[test]
fn sql_forms_read_per_client() {
    let sql = Some("databases/destructive-sql");
    denies(&[
        // MySQL's `--` is a comment only before a blank.
        ("mysql -e 'DELETE FROM t WHERE id=1--1 OR 1'", sql),
        ("mysql -e 'DELETE FROM t WHERE id=1 -- OR 1'", None),
        ("psql -c 'DELETE FROM t WHERE id=1--1 OR 1'", None),
        // Bodies stored and run later in the same text.
        ("psql -c 'PREPARE p AS DELETE FROM t; EXECUTE p'", sql),
        ("psql -c 'PREPARE p AS DELETE FROM t'", None),
        (
            "psql -c \"CREATE FUNCTION f() RETURNS void AS 'DROP TABLE t' LANGUAGE sql; SELECT f()\"",
            sql,
        ),
        (
            "psql -c \"CREATE FUNCTION f() RETURNS void AS 'DROP TABLE t' LANGUAGE sql\"",
            None,
        ),
        (
            "psql -c \"SELECT dblink_exec('dbname=x', 'DROP TABLE t')\"",
            sql,
        ),
        ("psql -c \"SELECT dblink_exec('dbname=x', 'VACUUM')\"", None),
        // Rolled back by the same text.
        ("psql -c 'BEGIN; DELETE FROM t; ROLLBACK'", None),
        ("sqlite3 db 'BEGIN; DROP TABLE t; ROLLBACK;'", None),
        (
            "mysql -e 'START TRANSACTION; DELETE FROM t; ROLLBACK'",
            None,
        ),
        ("psql -c 'BEGIN; DELETE FROM t; COMMIT'", sql),
        (
            "psql -c 'BEGIN; DELETE FROM t; COMMIT; BEGIN; ROLLBACK'",
            sql,
        ),
        ("psql -c 'DELETE FROM t; BEGIN; ROLLBACK'", sql),
        (
            "psql -c 'BEGIN; DELETE FROM t; ROLLBACK TO SAVEPOINT s'",
            sql,
        ),
        ("mysql -e 'BEGIN; DROP TABLE t; ROLLBACK'", sql),
        (
            "psql -c \"BEGIN; SELECT dblink_exec('x', 'DROP TABLE t'); ROLLBACK\"",
            sql,
        ),
        // Temporary tables the text created.
        ("psql -c 'create temp table x(a int); drop table x'", None),
        (
            "mysql -e 'CREATE TEMPORARY TABLE x (a int); DELETE FROM x'",
            None,
        ),
        ("psql -c 'create temp table x(a int); drop table x, y'", sql),
        ("psql -c 'create table x(a int); drop table x'", sql),
        ("psql -c 'drop table x; create temp table x(a int)'", sql),
    ]);
}

#[test]
fn sql_reaching_the_client_other_ways_denies() {
    let sql = Some("databases/destructive-sql");
    denies(&[
        (
            r#"psql -Atc "select 'drop table ' || tablename || ';' from pg_tables" | psql"#,
            sql,
        ),
        (
            r#"mysql -N -e "SELECT CONCAT('DROP TABLE ', table_name, ';') FROM t" | mysql db"#,
            sql,
        ),
        (
            r#"psql -Atc "select 'select count(*) from ' || tablename from pg_tables" | psql"#,
            None,
        ),
        (
            r#"psql -Atc "select 'drop table ' || tablename from pg_tables" | grep x"#,
            None,
        ),
        (
            r#"psql -Atc "select 'drop table ' || tablename from pg_tables" | psql -c 'select 1'"#,
            None,
        ),
        ("mysql db <<< \"$(cat <<'EOF'\ndrop table t;\nEOF\n)\"", sql),
        ("psql db <<EOF\n$(echo drop table t)\nEOF", sql),
        ("psql db <<EOF\n$(echo select 1)\nEOF", None),
        ("psql db <<'EOF'\n$(echo drop table t)\nEOF", None),
        (
            "psql db <<EOF\nDELETE FROM users WHERE id = $ID;\nEOF",
            None,
        ),
        (
            "psql db <<EOF\nDELETE FROM users WHERE id = ${ID};\nEOF",
            None,
        ),
        ("psql db <<EOF\nDELETE FROM users $FILTER;\nEOF", sql),
        (r#"sqlite3 "$DB" 'DELETE FROM t'"#, sql),
        (
            r#"for db in *.db; do sqlite3 "$db" 'DROP TABLE t'; done"#,
            sql,
        ),
        (r#"sqlite3 "$DB" 'SELECT count(*) FROM t'"#, None),
        (
            "echo 'drop table t;' > x.sql; sqlite3 db '.read x.sql'",
            sql,
        ),
        ("echo 'select 1;' > x.sql; sqlite3 db '.read x.sql'", None),
        ("echo 'db.dropDatabase()' > x.js; mongosh x.js", sql),
        ("echo 'db.dropDatabase()' > x.js; mongosh --file x.js", sql),
        ("echo 'db.c.find()' > x.js; mongosh x.js", None),
        ("mongosh x.js", None),
    ]);
}

#[test]
fn mongosh_filters_that_match_everything_deny() {
    let sql = Some("databases/destructive-sql");
    denies(&[
        ("mongosh --eval 'db.c.deleteMany({name: /.*/})'", sql),
        (
            "mongosh --eval 'db.c.deleteMany({_id: {$regex: \"\"}})'",
            sql,
        ),
        (
            "mongosh --eval 'db.c.deleteMany({_id: {$gte: MinKey()}})'",
            sql,
        ),
        ("mongosh --eval 'db.c.deleteMany(new Object())'", sql),
        ("mongosh --eval 'db.c.remove(JSON.parse(\"{}\"))'", sql),
        ("mongosh --eval 'db.c.deleteMany({name: /^tmp/})'", None),
        (
            "mongosh --eval 'db.c.deleteMany({name: {$regex: \"^tmp\"}})'",
            None,
        ),
        (
            "mongosh --eval 'db.c.deleteMany({age: {$gte: MinKey()}})'",
            None,
        ),
        (
            "mongosh --eval 'db.c.deleteMany({_id: {$gt: ObjectId(\"65a000000000000000000000\")}})'",
            None,
        ),
        (
            "mongosh --eval 'db.c.deleteMany(JSON.parse(\"{\\\"a\\\":1}\"))'",
            None,
        ),
        ("mongosh --eval 'db.c.explain().remove({})'", None),
        (
            "mongosh --eval 'db.c.explain(\"executionStats\").deleteMany({})'",
            None,
        ),
        ("mongosh --eval 'db.c.explain(); db.c.deleteMany({})'", sql),
    ]);
}
