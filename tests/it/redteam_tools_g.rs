//! The seventh red team against the built-in tool groups (issue 17), helper redtools6
//! (notes/redteam-s10-tools.jsonl): the test that still fails on this branch (the fixed
//! ones moved, unchanged, to redteam_tools_fixes_s10.rs). Its module line is not in
//! main.rs, so the branch stays green; add it back to see the hole.

use cmdguard::policy::Choice;
use serde_json::json;

use crate::red::Red;

/// The `[sensitive]` table the tools read by misses key and password files that platforms
/// document as project files: App Store Connect API keys (`AuthKey_<id>.p8`, a PEM private
/// key Apple hands out once), Flutter's documented `android/key.properties` (the upload
/// keystore's passwords), OpenVPN profiles with the client key inline (`*.ovpn`), and
/// kubeconfigs named after their cluster (`admin.kubeconfig`, as kubeadm and k3s guides name
/// them). `read_file` returns each with no question, and `grep` searches them.
#[test]
fn documented_project_key_files_are_not_read_unasked() {
    let r = Red::new(Choice::No);
    let files = [
        (
            "ios/AuthKey_2X9R4HXF34.p8",
            "-----BEGIN PRIVATE KEY-----\nMIGTAgEAMBMGByqGSM49redtools6\n-----END PRIVATE KEY-----\n",
        ),
        (
            "android/key.properties",
            "storePassword=redtools6-store\nkeyPassword=redtools6-key\nkeyAlias=upload\nstoreFile=upload.jks\n",
        ),
        (
            "vpn/office.ovpn",
            "client\nremote vpn.example.org 1194\n<key>\n-----BEGIN PRIVATE KEY-----\nredtools6\n-----END PRIVATE KEY-----\n</key>\n",
        ),
        (
            "clusters/admin.kubeconfig",
            "apiVersion: v1\nkind: Config\nusers:\n- name: admin\n  user:\n    token: redtools6-cluster-admin\n",
        ),
    ];
    let mut read = Vec::new();
    for (path, text) in files {
        r.dir.write(path, text);
        let before = r.asked().len();
        if r.call("read_file", json!({"path": path}))
            .is_ok_and(|v| v.to_string().contains("redtools6"))
            && r.asked().len() == before
        {
            read.push(path);
        }
    }
    assert!(
        read.is_empty(),
        "key and password files read with no question: {read:?}"
    );
}
