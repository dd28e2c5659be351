//! Database rows of session 9's deny red team (issue 12, reddeny; `/work/notes/redteam-s9-deny.jsonl`),
//! fixed on branch denysql. The `#[test]`s named as in `tests/it/redteam_deny_s9.rs` are copied
//! from there unchanged; `sql_on_nothing_persistent_denied` there mixes a row not fixed here
//! (a psql temporary table), so its fixed rows, the `<` of a written SQL file and the near
//! misses of each fix are in the tables at the end. SQL semantics checked with python3's sqlite3
//! (3-row tables: every positive here leaves 0 rows, every near miss some).

use super::redteam_deny_s9::{must_deny, must_not_deny};

#[test]
fn sql_statements_that_drop_data_unlisted() {
    must_deny(&[
        "psql -c 'DROP OWNED BY app'",
        "psql -c 'ALTER TABLE t DROP COLUMN c'",
        "mysql db -e 'ALTER TABLE t DROP COLUMN c'",
        "sqlite3 db 'ALTER TABLE t DROP COLUMN c'",
        "psql -c 'DROP TYPE e CASCADE'",
        "psql -c 'drop extension x cascade'",
        "clickhouse-client -q 'ALTER TABLE t DELETE WHERE 1'",
    ]);
}

#[test]
fn sql_update_without_where() {
    must_deny(&[
        "psql -c 'UPDATE users SET password = NULL'",
        "mysql db -e 'update t set x = 0'",
        "sqlite3 db 'UPDATE t SET x = 0'",
        "sqlite3 db 'UPDATE t SET x = 0 WHERE 1=1'",
    ]);
}

#[test]
fn sql_where_tautologies_missed() {
    must_deny(&[
        "sqlite3 db 'DELETE FROM t WHERE id IS id'",
        "sqlite3 db 'DELETE FROM t WHERE rowid'",
        "sqlite3 db 'DELETE FROM t WHERE id > -1'",
        "sqlite3 db 'DELETE FROM t WHERE id IN (id)'",
        "sqlite3 db 'DELETE FROM t WHERE id BETWEEN id AND id'",
        "sqlite3 db 'DELETE FROM t WHERE id + 0 = id'",
        "sqlite3 db 'DELETE FROM t WHERE x = x COLLATE NOCASE'",
        r#"sqlite3 db "DELETE FROM t WHERE name <> '' OR name = ''""#,
        "sqlite3 db 'DELETE FROM t WHERE NOT (id <> id)'",
        "psql -c 'delete from t where id is not distinct from id'",
    ]);
}

#[test]
fn heredoc_strip_tabs_body_still_read() {
    must_deny(&[
        "psql db <<-EOF\n\tdrop table t;\n\tEOF",
        "mysql db <<-EOF\n\tDROP DATABASE x;\n\tEOF",
        "sqlite3 db <<-EOF\n\tDELETE FROM t;\n\tEOF",
    ]);
}

#[test]
fn compose_v1_exec_sql() {
    must_deny(&["docker-compose exec -T db psql -c 'drop table t'"]);
}

#[test]
fn other_sql_clients() {
    must_deny(&[
        "cockroach sql -e 'drop database x'",
        "sqlcmd -Q 'DROP DATABASE x'",
        "cqlsh -e 'DROP KEYSPACE k'",
        "usql pg://x -c 'drop table t'",
    ]);
}

#[test]
fn redis_scan_match_all_pattern() {
    must_deny(&[
        "redis-cli --scan --pattern '*' | xargs redis-cli unlink",
        "redis-cli --scan --pattern '*' | xargs redis-cli del",
    ]);
}

#[test]
fn mongosh_update_many_empty_filter() {
    must_deny(&[
        "mongosh --eval 'db.c.updateMany({}, {$unset: {a: 1}})'",
        "mongosh --eval 'db.c.updateMany({}, {$set: {a: null}})'",
    ]);
}

#[test]
fn sql_where_subquery_every_row() {
    must_deny(&[
        r#"sqlite3 db "delete from t where exists (select 1)""#,
        "psql -c 'delete from t where exists (select 1)'",
        r#"sqlite3 db "delete from t where id in (select id from t)""#,
        r#"sqlite3 db "delete from t where rowid in (select rowid from t)""#,
        r#"sqlite3 db "delete from t where id not in ()""#,
    ]);
}

#[test]
fn sql_real_filters_read_as_no_filter() {
    must_not_deny(&[
        r#"sqlite3 db "DELETE FROM t WHERE json_extract(data,'$.x') = 1""#,
        r#"psql -c "DELETE FROM t WHERE name ~ '^tmp_'""#,
        r#"psql -c "DELETE FROM t WHERE name ~* 'test'""#,
        r#"sqlite3 db "DELETE FROM t WHERE id = :id""#,
        r#"sqlite3 db "DELETE FROM t WHERE id = @id""#,
        r#"psql -v id=5 -c "DELETE FROM t WHERE id = :id""#,
    ]);
}

// ---- Rows of mixed red-team tests, and near misses of each fix ----------------------------

/// `sqlite3 :memory:` holds nothing when it starts and is gone when it ends (rows of
/// `sql_on_nothing_persistent_denied`); a database file attached or opened is stored data.
#[test]
fn sqlite_in_memory_database() {
    must_not_deny(&[
        "sqlite3 :memory: 'drop table if exists t'",
        "sqlite3 :memory: 'create table t(a); delete from t'",
    ]);
    must_deny(&[
        "sqlite3 :memory: \"attach 'app.db' as a; drop table a.t\"",
        "sqlite3 :memory: '.open app.db' 'drop table t'",
        "sqlite3 app.db 'drop table if exists t'",
    ]);
}

/// A SQL file the line wrote, fed to the client by `<` (rows of
/// `written_sql_file_fed_by_redirect`).
#[test]
fn written_sql_file_fed_by_read_redirect() {
    must_deny(&[
        "echo 'drop table t;' > x.sql; mysql db < x.sql",
        "cat > x.sql <<'EOF'\ndrop table t;\nEOF\nsqlite3 db < x.sql",
    ]);
    must_not_deny(&[
        "echo 'select 1;' > x.sql; mysql db < x.sql",
        "echo 'delete from t where id = 3;' > x.sql; psql db < x.sql",
    ]);
}

/// Near misses: a SELECT, a WHERE that narrows, a mention, the safe sibling of each statement.
#[test]
fn database_near_misses() {
    must_not_deny(&[
        // UPDATE
        "psql -c 'SELECT * FROM users'",
        "psql -c 'UPDATE users SET password = NULL WHERE id = 5'",
        "sqlite3 db 'UPDATE t SET x = 0 WHERE id = 1'",
        "mysql db -e 'INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE x = 1'",
        "sqlite3 db 'INSERT INTO t(a) VALUES (1) ON CONFLICT(a) DO UPDATE SET a = 2'",
        "psql -c 'SELECT * FROM t FOR UPDATE'",
        "psql -c 'GRANT SELECT, UPDATE ON t TO app'",
        "grep -rn 'UPDATE users SET' src/",
        // DROP, ALTER
        "psql -c 'ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (a) REFERENCES u(id) ON DELETE CASCADE'",
        "psql -c 'ALTER TABLE t ADD COLUMN c int'",
        "psql -c 'ALTER TABLE t DROP CONSTRAINT c'",
        "psql -c 'DROP TYPE e'",
        "psql -c 'REASSIGN OWNED BY app TO bob'",
        "clickhouse-client -q 'ALTER TABLE t DELETE WHERE id = 1'",
        // WHERE
        "sqlite3 db 'DELETE FROM t WHERE id IS NULL'",
        "sqlite3 db 'DELETE FROM t WHERE id IN (1, 2)'",
        "sqlite3 db 'DELETE FROM t WHERE id BETWEEN 1 AND 5'",
        "sqlite3 db 'DELETE FROM t WHERE id BETWEEN 1 AND 5 AND x = 2'",
        "sqlite3 db 'DELETE FROM t WHERE id + 1 = 5'",
        "sqlite3 db 'DELETE FROM t WHERE id * 0 = id'",
        "sqlite3 db 'DELETE FROM t WHERE id <> id'",
        "sqlite3 db \"DELETE FROM t WHERE name <> '' OR name = 'x'\"",
        "sqlite3 db 'DELETE FROM t WHERE NOT (id <> 5)'",
        "sqlite3 db 'DELETE FROM t WHERE exists (select 1 from u where u.tid = t.id)'",
        "sqlite3 db 'DELETE FROM t WHERE id in (select tid from u)'",
        "sqlite3 db 'DELETE FROM t WHERE id in (select id from u where x = 1)'",
        "sqlite3 db 'DELETE FROM t WHERE id in ()'",
        "sqlite3 db 'DELETE FROM t WHERE id > -1 AND x = 2'",
        // clients, heredocs, redis, mongosh
        "psql db <<-EOF\n\tselect 1;\n\tEOF",
        "docker-compose exec -T db psql -c 'select 1'",
        "cockroach sql -e 'select 1'",
        "cockroach start --insecure",
        "sqlcmd -Q 'SELECT 1'",
        "cqlsh -e 'DESCRIBE KEYSPACES'",
        "usql pg://x -c 'select 1'",
        "redis-cli --scan --pattern 'sess:*' | xargs redis-cli del",
        "redis-cli --scan --pattern '*'",
        "mongosh --eval 'db.c.updateMany({a: 1}, {$set: {a: null}})'",
    ]);
    must_deny(&[
        "psql -c \"DELETE FROM t WHERE name ~ '.*'\"",
        "sqlite3 db 'DELETE FROM t WHERE x IS NULL OR x IS NOT NULL'",
        "psql -c 'drop domain d cascade'",
        "redis-cli --pattern '*' --scan | xargs redis-cli del",
    ]);
}
