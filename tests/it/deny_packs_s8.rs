//! Session 8's red team rows for the cloud, kubernetes, container and SaaS packs: commands that
//! delete infrastructure or data through a CLI agents are often allowed to run (`Bash(gh:*)`,
//! `Bash(aws:*)`), so `ask` would run them. Each row denies with the rule named; the near
//! misses beside it — a read, a help or dry-run form, a single small object — do not.

use super::packs::denies;

#[test]
fn cloud_verb_rules_deny_deletes_of_data_and_infrastructure() {
    const AWS: Option<&str> = Some("cloud/aws-delete-data-store");
    const GCLOUD: Option<&str> = Some("cloud/gcloud-delete-data-or-infrastructure");
    const AZ: Option<&str> = Some("cloud/az-delete-data-or-infrastructure");
    const AZ_NESTED: Option<&str> = Some("cloud/az-delete-nested-data-or-infrastructure");
    denies(&[
        ("aws eks delete-cluster --name x", AWS),
        ("aws efs delete-file-system --file-system-id fs-1", AWS),
        ("aws backup delete-backup-vault --backup-vault-name v", AWS),
        ("aws ecr delete-repository --repository-name r --force", AWS),
        ("aws route53 delete-hosted-zone --id Z1", AWS),
        (
            "aws --profile prod lambda delete-function --function-name f",
            AWS,
        ),
        (
            "aws organizations close-account --account-id 1",
            Some("cloud/aws-organizations-close"),
        ),
        (
            "aws secretsmanager delete-secret --secret-id x --force-delete-without-recovery",
            Some("cloud/aws-secret-force-delete"),
        ),
        (
            "aws kms schedule-key-deletion --key-id k",
            Some("cloud/aws-kms-schedule-key-deletion"),
        ),
        ("aws eks describe-cluster --name x", None),
        ("aws eks delete-cluster help", None),
        ("aws eks delete-cluster --generate-cli-skeleton", None),
        ("aws ec2 delete-volume --volume-id v --dry-run", None),
        (
            "aws sqs delete-message --queue-url q --receipt-handle h",
            None,
        ),
        ("aws secretsmanager delete-secret --secret-id x", None),
        ("gcloud container clusters delete x --quiet", GCLOUD),
        ("gcloud run services delete web", GCLOUD),
        ("gcloud sql databases delete app --instance db", GCLOUD),
        ("gcloud firestore databases delete --database=x", GCLOUD),
        ("gcloud compute disks delete d1", GCLOUD),
        (
            "gcloud beta container clusters delete x",
            Some("cloud/gcloud-release-track-delete"),
        ),
        (
            "gcloud functions delete f",
            Some("cloud/gcloud-functions-secrets-delete"),
        ),
        ("gcloud container clusters delete --help", None),
        ("gcloud container clusters list", None),
        ("gcloud config configurations delete old", None),
        (
            "gsutil -m rm gs://b/**",
            Some("cloud/gsutil-rm-recursive-wildcard"),
        ),
        (
            "gcloud storage rm 'gs://b/**'",
            Some("cloud/gcloud-storage-rm-recursive-wildcard"),
        ),
        ("gsutil rm gs://b/one.txt", None),
        ("az aks delete -n x -g y --yes", AZ),
        ("az vm delete -n v -g g", AZ),
        ("az keyvault purge --name kv", AZ),
        ("az cosmosdb delete -n c -g g", AZ),
        ("az storage account delete -n a", AZ_NESTED),
        ("az sql db delete -n d -s s -g g", AZ_NESTED),
        ("az aks delete --help", None),
        ("az aks show -n x -g y", None),
        ("az storage blob delete -c c -n one.txt", None),
        (
            "terraform apply -auto-approve -replace=aws_db_instance.x",
            Some("cloud/terraform-apply-replace"),
        ),
        ("terraform apply -replace=aws_db_instance.x", None),
        ("terraform plan -replace=aws_db_instance.x", None),
        ("terraform apply -auto-approve", None),
        (
            "vault secrets disable secret/",
            Some("cloud/vault-secrets-disable"),
        ),
        ("vault secrets list", None),
    ]);
}

#[test]
fn saas_clis_deny_deletes_of_repositories_apps_and_databases() {
    denies(&[
        ("gh repo delete o/r --yes", Some("cloud/gh-repo-delete")),
        ("glab repo delete o/r --yes", Some("cloud/glab-repo-delete")),
        ("gh repo view o/r", None),
        ("gh repo delete --help", None),
        (
            "gh api -X DELETE repos/o/r",
            Some("cloud/gh-api-delete-repo-or-org"),
        ),
        (
            "gh api --method=delete /repos/{owner}/{repo}",
            Some("cloud/gh-api-delete-repo-or-org"),
        ),
        ("gh api -X DELETE repos/o/r/issues/comments/1", None),
        ("gh api repos/o/r", None),
        // A shell alias runs its body later: the body is read as bash.
        (
            "gh alias set --shell x 'rm -rf v'",
            Some("core.filesystem/rm-recursive"),
        ),
        (
            "gh alias set x '!rm -rf v'",
            Some("core.filesystem/rm-recursive"),
        ),
        ("gh alias set co 'pr checkout'", None),
        ("gh alias set --shell x 'ls'", None),
        (
            "heroku pg:reset DATABASE_URL --confirm x",
            Some("cloud/heroku-destroy"),
        ),
        ("heroku apps:destroy -a x", Some("cloud/heroku-destroy")),
        ("heroku pg:info", None),
        ("fly apps destroy x -y", Some("cloud/fly-destroy")),
        ("flyctl volumes destroy vol_1", Some("cloud/flyctl-destroy")),
        ("fly apps list", None),
        (
            "supabase db reset --linked",
            Some("cloud/supabase-remote-reset"),
        ),
        ("supabase db reset", None),
        (
            "firebase firestore:delete --all-collections -f",
            Some("cloud/firebase-firestore-delete-all"),
        ),
        (
            "firebase database:remove / -f",
            Some("cloud/firebase-database-remove"),
        ),
        ("firebase firestore:delete users/one -f", None),
        ("doctl databases delete id -f", Some("cloud/doctl-delete")),
        ("doctl databases list", None),
        ("vercel remove my-app --yes", Some("cloud/vercel-remove")),
        ("vercel deploy", None),
        (
            "netlify sites:delete id --force",
            Some("cloud/netlify-sites-delete"),
        ),
    ]);
}

#[test]
fn kubernetes_and_container_gaps_deny() {
    denies(&[
        (
            "kubectl delete crd x",
            Some("kubernetes/kubectl-delete-crd"),
        ),
        (
            "kubectl delete customresourcedefinitions.apiextensions.k8s.io x",
            Some("kubernetes/kubectl-delete-crd"),
        ),
        ("kubectl get crd", None),
        ("kubectl delete crd x --dry-run=client", None),
        ("kubectl delete pod crd-reader", None),
        (
            "kubectl apply --prune --all -f .",
            Some("kubernetes/kubectl-apply-prune"),
        ),
        ("kubectl apply -f k8s/", None),
        ("kubectl apply --prune --all -f . --dry-run=server", None),
        (
            "docker compose -f x.yml down -v",
            Some("containers/docker-compose-options-down-volumes"),
        ),
        (
            "docker compose --project-name x down --volumes",
            Some("containers/docker-compose-options-down-volumes"),
        ),
        (
            "docker compose rm -sfv",
            Some("containers/docker-compose-rm-volumes-plain"),
        ),
        ("docker compose -f x.yml down", None),
        ("docker compose -f x.yml logs -v", None),
        ("docker compose rm -f web", None),
    ]);
}
