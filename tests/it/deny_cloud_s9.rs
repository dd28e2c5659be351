//! Session 9's red team rows (reddeny) for the cloud, kubernetes and container packs, fixed by
//! the lead: global options before and between subcommand words (declared or not), more data
//! stores and stack tools, `TF_CLI_ARGS`, the kubectl that k3s, microk8s and minikube bundle,
//! listed names fed to `kubectl delete`, the standalone compose binary's options, nerdctl and
//! finch; and the help and dry-run forms the named rules denied. Each row denies with the rule
//! named; the near misses beside it do not.

use super::packs::denies;

#[test]
fn global_options_anywhere_before_the_verb_still_deny() {
    denies(&[
        (
            "aws --no-cli-auto-prompt s3 rb s3://b",
            Some("cloud/aws-s3-rb"),
        ),
        ("aws s3 --profile p rb s3://b", Some("cloud/aws-s3-rb")),
        (
            "gcloud compute --project=p instances delete vm --zone z",
            Some("cloud/gcloud-compute-instances-delete"),
        ),
        (
            "gcloud compute --project p instances delete vm",
            Some("cloud/gcloud-compute-instances-delete"),
        ),
        (
            "gcloud --no-user-output-enabled projects delete p",
            Some("cloud/gcloud-projects-delete"),
        ),
        (
            "gcloud --user-output-enabled=false projects delete p",
            Some("cloud/gcloud-projects-delete"),
        ),
        // An option the pack does not declare is read both as a flag and with a value.
        (
            "gcloud --some-new-flag projects delete p",
            Some("cloud/gcloud-projects-delete"),
        ),
        (
            "gcloud --some-new-option v projects delete p",
            Some("cloud/gcloud-projects-delete"),
        ),
        (
            "docker-compose -f a.yml down -v",
            Some("containers/docker-compose-v1-down-volumes"),
        ),
        (
            "docker-compose -p x --project-name y down --volumes",
            Some("containers/docker-compose-v1-down-volumes"),
        ),
        ("gcloud compute --project p instances list", None),
        ("gcloud --format json projects describe p", None),
        ("docker-compose -f a.yml down", None),
        ("aws s3 --profile p ls s3://b", None),
    ]);
}

#[test]
fn more_stores_and_stack_tools_deny() {
    const MORE: Option<&str> = Some("cloud/aws-delete-more-data-stores");
    denies(&[
        ("aws logs delete-log-group --log-group-name g", MORE),
        ("aws sqs delete-queue --queue-url q", MORE),
        ("aws glue delete-database --name d", MORE),
        ("aws cognito-idp delete-user-pool --user-pool-id p", MORE),
        (
            "aws elasticbeanstalk terminate-environment --environment-name e",
            MORE,
        ),
        (
            "aws cloudformation delete-stack-set --stack-set-name s",
            MORE,
        ),
        ("aws dynamodb delete-backup --backup-arn a", MORE),
        ("aws apigateway delete-rest-api --rest-api-id a", MORE),
        (
            "aws ec2 delete-volume --volume-id v --dry-run --no-dry-run",
            Some("cloud/aws-delete-data-store-no-dry-run"),
        ),
        (
            "gcloud alpha storage rm -r gs://b",
            Some("cloud/gcloud-release-track-storage-rm-recursive"),
        ),
        ("bq rm -r -f -d proj:ds", Some("cloud/bq-rm-forced")),
        (
            "eksctl delete cluster --name prod",
            Some("cloud/eksctl-delete-cluster"),
        ),
        ("cdk destroy --force", Some("cloud/cdk-destroy-forced")),
        (
            "npx cdk destroy --all --force",
            Some("cloud/cdk-destroy-forced"),
        ),
        ("sls remove", Some("cloud/serverless-remove")),
        (
            "serverless remove --stage prod",
            Some("cloud/serverless-remove"),
        ),
        (
            "pulumi stack rm prod --force --yes",
            Some("cloud/pulumi-stack-rm-forced"),
        ),
        (
            "TF_CLI_ARGS=-destroy terraform apply -auto-approve",
            Some("cloud/terraform-apply-destroy"),
        ),
        (
            "TF_CLI_ARGS_apply=-destroy terraform apply -auto-approve",
            Some("cloud/terraform-apply-destroy"),
        ),
        (
            "terraform apply -auto-approve -destroy=1",
            Some("cloud/terraform-apply-destroy"),
        ),
        (
            "nerdctl volume rm data",
            Some("containers/nerdctl-finch-volume-rm"),
        ),
        (
            "finch volume rm data",
            Some("containers/nerdctl-finch-volume-rm"),
        ),
        // Near misses: reads, the prompting forms, another subcommand's arguments.
        ("aws logs describe-log-groups", None),
        (
            "aws sqs delete-message --queue-url q --receipt-handle h",
            None,
        ),
        ("aws ec2 delete-volume --volume-id v --dry-run", None),
        ("gcloud alpha storage rm gs://b/one.txt", None),
        ("bq rm -t proj:ds.t", None),
        ("cdk destroy", None),
        ("sls deploy", None),
        ("pulumi stack rm prod", None),
        (
            "TF_CLI_ARGS_plan=-destroy terraform apply -auto-approve",
            None,
        ),
        (
            "TF_CLI_ARGS=-input=false terraform apply -auto-approve",
            None,
        ),
        ("terraform apply -destroy=false", None),
        ("nerdctl volume ls", None),
    ]);
}

#[test]
fn kubectl_under_other_names_and_fed_every_name_denies() {
    const NS: Option<&str> = Some("kubernetes/kubectl-delete-namespace");
    const LISTED: Option<&str> = Some("kubernetes/kubectl-delete-listed-names");
    denies(&[
        ("k3s kubectl delete ns x", NS),
        ("microk8s.kubectl delete ns x", NS),
        ("minikube kubectl -- delete ns x", NS),
        (
            "k3s kubectl delete pods --all",
            Some("kubernetes/kubectl-delete-all"),
        ),
        ("kubectl get ns -o name | xargs kubectl delete", LISTED),
        ("kubectl delete $(kubectl get ns -o name)", LISTED),
        ("kubectl get pods -o name | xargs kubectl delete", LISTED),
        (
            "kubectl delete -n x $(kubectl get pods -o name -n x)",
            LISTED,
        ),
        ("kubectl delete ns x --dry-run=none", NS),
        ("k3s kubectl get pods", None),
        ("minikube kubectl -- get pods", None),
        (
            "kubectl get pods -l app=web -o name | xargs kubectl delete",
            None,
        ),
        ("kubectl delete $(kubectl get pods -o wide)", None),
    ]);
}

/// README: a rule is not applied when the program only prints help or does a dry run.
#[test]
fn help_and_dry_run_forms_of_the_named_rules_do_not_deny() {
    denies(&[
        ("gcloud projects delete --help", None),
        ("gcloud projects delete -h", None),
        ("gcloud compute instances delete --help", None),
        ("aws s3 rb help", None),
        ("aws s3 rb s3://b help", None),
        ("aws ec2 terminate-instances help", None),
        (
            "aws ec2 terminate-instances --instance-ids i-1 --dry-run",
            None,
        ),
        ("aws rds delete-db-instance help", None),
        ("az group delete -h", None),
        ("az group delete --help", None),
        ("pulumi destroy --help", None),
        ("docker volume rm --help", None),
        ("docker volume rm -h", None),
        ("kubectl delete ns x --dry-run", None),
        ("kubectl delete ns x --dry-run=true", None),
        ("kubectl delete pods --all --dry-run", None),
        ("kubectl drain n1 --dry-run", None),
        ("kubectl apply --prune --all -f . --dry-run", None),
        (
            "aws ec2 terminate-instances --instance-ids i-1",
            Some("cloud/aws-ec2-terminate"),
        ),
        (
            "gcloud projects delete p",
            Some("cloud/gcloud-projects-delete"),
        ),
        ("docker volume rm data", Some("containers/docker-volume-rm")),
    ]);
}
