//! The judge itself: GitHub's descriptions must refuse what GitHub would not send or
//! accept, and the emulator's GraphQL schema must be a part of GitHub's.

use std::sync::Arc;

use apollo_compiler::Schema;
use apollo_compiler::schema::ExtendedType;
use github_emulator::Descriptions;
use serde_json::json;

fn descriptions() -> Arc<Descriptions> {
    Descriptions::shared().unwrap_or_else(|e| panic!("{e}"))
}

/// A field as the comparison sees it: name, type, and its arguments' names and types.
type Field = (String, String, Vec<(String, String)>);

const ISSUE: &str = "/repos/{owner}/{repo}/issues/{issue_number}";

#[test]
fn a_response_missing_a_required_property_is_a_violation() {
    let problems =
        descriptions().check_response("GET", ISSUE, 200, Some(&json!({ "title": "no number" })));
    assert!(
        problems.iter().any(|p| p.contains("number")),
        "{problems:?}"
    );
}

#[test]
fn a_status_the_operation_does_not_list_is_a_violation() {
    let problems = descriptions().check_response("GET", ISSUE, 418, Some(&json!({})));
    assert_eq!(
        problems,
        ["GET /repos/{owner}/{repo}/issues/{issue_number}: GitHub does not describe status 418"]
    );
}

#[test]
fn a_request_with_an_undescribed_parameter_or_a_wrong_body_is_a_violation() {
    let d = descriptions();
    let list = "/repos/{owner}/{repo}/issues";
    let query = d.check_request(
        "GET",
        list,
        "/repos/o/r/issues",
        "labels=x&colour=red",
        None,
    );
    assert_eq!(
        query,
        ["GET /repos/{owner}/{repo}/issues: query parameter \"colour\" is not described"]
    );
    let typed = d.check_request("GET", list, "/repos/o/r/issues", "per_page=many", None);
    assert_eq!(typed.len(), 1, "{typed:?}");

    let one = "/repos/o/r/issues/1";
    let body = d.check_request(
        "PATCH",
        ISSUE,
        one,
        "",
        Some(&json!({ "state": "half-open" })),
    );
    assert!(body.iter().any(|p| p.contains("/state")), "{body:?}");
    assert!(
        d.check_request("PATCH", ISSUE, one, "", Some(&json!({ "body": "ok" })))
            .is_empty()
    );
    let path = d.check_request(
        "PATCH",
        ISSUE,
        "/repos/o/r/issues/first",
        "",
        Some(&json!({ "body": "ok" })),
    );
    assert!(
        path.iter()
            .any(|p| p.contains("path parameter \"issue_number\"")),
        "{path:?}"
    );
    assert_eq!(
        d.check_request(
            "GET",
            "/repos/{owner}/{repo}/nothing",
            "/repos/o/r/nothing",
            "",
            None
        ),
        ["GitHub describes no operation GET /repos/{owner}/{repo}/nothing"]
    );
}

#[test]
fn a_graphql_document_that_asks_for_a_field_github_lacks_is_a_violation() {
    let d = descriptions();
    assert!(
        d.check_graphql(
            "query Q { repository(owner: \"o\", name: \"r\") { issue(number: 1) { body } } }"
        )
        .is_empty()
    );
    let wrong = d.check_graphql(
        "query Q { repository(owner: \"o\", name: \"r\") { issue(number: 1) { bodyText2 } } }",
    );
    assert!(
        wrong
            .iter()
            .any(|p| p.contains("does not have a field `bodyText2`")),
        "{wrong:?}"
    );
}

/// Every type, field and argument the emulator serves exists in GitHub's schema with the
/// same type, so a document that runs here runs against GitHub too.
#[test]
fn the_emulator_s_graphql_schema_is_a_part_of_github_s() {
    let github = descriptions();
    let github = github.graphql_schema();
    let ours = Schema::parse(github_emulator::graphql_sdl(), "emulator.graphql")
        .unwrap_or_else(|e| e.partial);
    let mut problems = Vec::new();
    for (name, ty) in &ours.types {
        if ty.is_built_in() {
            continue;
        }
        let Some(theirs) = github.types.get(name) else {
            problems.push(format!("type {name} is not GitHub's"));
            continue;
        };
        let fields = |t: &ExtendedType| -> Vec<Field> {
            let list: Vec<_> = match t {
                ExtendedType::Object(o) => o.fields.values().map(|f| f.node.clone()).collect(),
                ExtendedType::Interface(i) => i.fields.values().map(|f| f.node.clone()).collect(),
                _ => Vec::new(),
            };
            list.iter()
                .map(|f| {
                    let args = f
                        .arguments
                        .iter()
                        .map(|a| (a.name.to_string(), a.ty.to_string()))
                        .collect();
                    (f.name.to_string(), f.ty.to_string(), args)
                })
                .collect()
        };
        let theirs_fields = fields(theirs);
        for (field, ty, args) in fields(ty) {
            match theirs_fields.iter().find(|(f, _, _)| *f == field) {
                None => problems.push(format!("{name}.{field} is not GitHub's")),
                Some((_, their_ty, their_args)) => {
                    if *their_ty != ty {
                        problems.push(format!("{name}.{field} is {ty}, GitHub's is {their_ty}"));
                    }
                    for (arg, arg_ty) in args {
                        match their_args.iter().find(|(a, _)| *a == arg) {
                            None => problems.push(format!("{name}.{field}({arg}) is not GitHub's")),
                            Some((_, their)) if *their != arg_ty => problems.push(format!(
                                "{name}.{field}({arg}) is {arg_ty}, GitHub's is {their}"
                            )),
                            Some(_) => {}
                        }
                    }
                }
            }
        }
        if let (ExtendedType::Enum(mine), ExtendedType::Enum(theirs)) = (ty, theirs) {
            for value in mine.values.keys() {
                if !theirs.values.contains_key(value) {
                    problems.push(format!("{name}.{value} is not GitHub's"));
                }
            }
        }
        if let (ExtendedType::InputObject(mine), ExtendedType::InputObject(theirs)) = (ty, theirs) {
            for (field, def) in &mine.fields {
                match theirs.fields.get(field) {
                    Some(their) if their.ty == def.ty => {}
                    Some(their) => problems.push(format!(
                        "{name}.{field} is {}, GitHub's is {}",
                        def.ty, their.ty
                    )),
                    None => problems.push(format!("{name}.{field} is not GitHub's")),
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

/// The payload of a `pull_request` event the emulator gives a test's job is GitHub's
/// `webhook-pull-request-<action>`, for a branch of the repository and for a fork.
#[test]
fn a_pull_request_events_payload_is_the_one_github_describes() {
    use github_emulator::world::{FileChange, World};
    use github_emulator::{Act, Emulator, Options};
    let emulator = Emulator::start(
        World::new("2026-03-01T09:00:00Z".parse().unwrap()),
        Options::default(),
    )
    .unwrap();
    for act in [
        Act::AddRepo {
            repo: "octo/infra".into(),
            default_branch: "main".into(),
        },
        Act::Push {
            repo: "octo/infra".into(),
            branch: "main".into(),
            author: Some("alice".into()),
            message: "first".into(),
            files: vec![FileChange {
                path: "a.tf".into(),
                status: "added".into(),
                previous_path: None,
                content: None,
            }],
        },
        Act::OpenPull {
            repo: "octo/infra".into(),
            author: "bob".into(),
            title: "a change".into(),
            files: vec![FileChange {
                path: "a.tf".into(),
                status: "modified".into(),
                previous_path: None,
                content: None,
            }],
        },
    ] {
        emulator.act(act).unwrap();
    }
    for (action, fork) in [
        ("opened", None),
        ("synchronize", Some("mallory".to_owned())),
    ] {
        let payload = emulator
            .act(Act::PullRequestEvent {
                repo: "octo/infra".into(),
                number: 1,
                action: action.into(),
                fork: fork.clone(),
            })
            .unwrap();
        let problems =
            descriptions().check_webhook(&format!("webhook-pull-request-{action}"), &payload);
        assert_eq!(problems, Vec::<String>::new(), "{payload:#}");
        let head = payload["pull_request"]["head"]["repo"]["full_name"]
            .as_str()
            .unwrap();
        assert_eq!(head == "octo/infra", fork.is_none(), "{head}");
    }
}
