//! The console's pages in a real browser (issue 42): the real `sluiceway console serve`,
//! taught by GitHub's deliveries after a real scan with the real OpenTofu, a person
//! signed in through GitHub's web flow, and Chromium driven by playwright-core reading
//! the page as that person sees it, by keyboard, in the light scheme and the dark.

mod support;

use serde_json::Value;
use sluiceway_github::GitHub;
use support::Bed;
use support::browser::Browser;
use support::console::*;
use support::job::CANARY;

/// A stack whose id would run in a page that did not escape it.
const HOSTILE: &str = "<img src=x onerror=alert(1)>";

/// The example scanned for the console with a canary resource and a stack in a folder
/// named `HOSTILE`, and `login` signed in: the console and the session's cookie.
fn an_org_with_a_hostile_stack(bed: &Bed) -> (Console, String) {
    let app = installed_app(bed);
    let console = Console::of_app(bed, &app);
    scanned_for_the_app_after(bed, &console, |job| {
        with_canaries(job);
        let hostile = job.file(HOSTILE);
        std::fs::create_dir_all(&hostile).unwrap();
        std::fs::copy(job.file("network/main.tf"), hostile.join("main.tf")).unwrap();
        let config = std::fs::read_to_string(job.file("sluiceway.yaml")).unwrap()
            + &format!("  - path: \"{HOSTILE}\"\n    tool: opentofu\n");
        std::fs::write(job.file("sluiceway.yaml"), config).unwrap();
    });
    let signed = sign_in(&console, "alice");
    let (session, _) = set_cookie(&signed, "sluiceway_session").expect("a session");
    (console, session)
}

/// What Chromium shows of the org view in each scheme, and where the keyboard takes a
/// person who tabs to the Pending chip and presses Enter.
const READ_THE_ORG_VIEW: &str = r#"
const [address, session] = process.argv.slice(2);
const report = { dialogs: [] };
for (const scheme of ['light', 'dark']) {
  const page = await signedIn(address, session, { colorScheme: scheme });
  page.on('dialog', async d => { report.dialogs.push(d.message()); await d.dismiss(); });
  await page.goto(address + '/');
  report[scheme] = await page.evaluate(() => ({
    url: location.pathname,
    title: document.title,
    headings: [...document.querySelectorAll('h1')].map(h => h.textContent),
    groups: [...document.querySelectorAll('main h2')].map(h => h.textContent),
    chips: [...document.querySelectorAll('.chips a')].map(a => a.textContent),
    rows: [...document.querySelectorAll('main tbody tr')].map(tr => [...tr.cells].map(c => c.textContent)),
    ground: getComputedStyle(document.body).backgroundColor,
    ink: getComputedStyle(document.body).color,
    images: document.querySelectorAll('main img').length,
    notSetUp: [...document.querySelectorAll('section[aria-labelledby=not-set-up] li')].map(li => li.textContent),
  }));
  if (scheme === 'light') {
    let reached = null;
    for (let i = 0; i < 40 && reached === null; i++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => document.activeElement && document.activeElement.textContent);
      if (focused && focused.startsWith('Pending')) reached = i + 1;
    }
    report.tabs = reached;
    await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
    report.filtered = await page.evaluate(() => ({
      search: location.search,
      current: [...document.querySelectorAll('.chips a[aria-current]')].map(a => a.textContent),
      states: [...document.querySelectorAll('main tbody tr')].map(tr => tr.cells[2].textContent),
    }));
  }
}
return report;
"#;

#[test]
fn the_org_view_reads_in_a_browser_by_keyboard_in_both_schemes_and_runs_no_name() {
    let Some(browser) = Browser::find() else {
        return;
    };
    let bed = Bed::new();
    bed.emulator
        .act(github_emulator::Act::AddRepo {
            repo: "octo/billing".into(),
            default_branch: "main".into(),
        })
        .unwrap();
    let (console, session) = an_org_with_a_hostile_stack(&bed);
    let report = browser.run(READ_THE_ORG_VIEW, &[&console.url, &session]);

    let light = &report["light"];
    assert_eq!(
        light["url"], "/octo",
        "the front door sends alice to her one org"
    );
    assert_eq!(light["title"], "octo · Sluiceway console");
    assert_eq!(light["headings"], serde_json::json!(["octo"]), "one h1");
    assert_eq!(
        light["groups"],
        serde_json::json!(["Needs you (4)", "Not set up yet"])
    );
    assert_eq!(
        light["chips"],
        serde_json::json!([
            "All 4",
            "Pending 4",
            "Deploying 0",
            "Drifted 0",
            "Failed 0",
            "In sync 0"
        ])
    );
    let stacks: Vec<&str> = rows(light).iter().map(|row| row[0]).collect();
    assert_eq!(
        stacks,
        [HOSTILE, "network", "storage:dev", "storage:prod"],
        "the hostile id is a stack's text"
    );
    assert_eq!(light["images"], 0, "no name became an element");
    assert_eq!(
        light["notSetUp"],
        serde_json::json!(["billing"]),
        "the app reaches billing, which has no dashboard"
    );
    assert_eq!(report["dialogs"], serde_json::json!([]), "no name ran");

    let dark = &report["dark"];
    assert_eq!(dark["rows"], light["rows"]);
    assert_ne!(
        dark["ground"], light["ground"],
        "the dark scheme is followed"
    );
    assert_ne!(dark["ink"], light["ink"]);
    assert_eq!(light["ground"], "rgb(255, 255, 255)");
    assert_eq!(dark["ground"], "rgb(13, 17, 23)");

    assert!(
        report["tabs"].as_u64().is_some(),
        "the chips are reached by Tab: {report}"
    );
    let filtered = &report["filtered"];
    assert_eq!(filtered["search"], "?state=pending&by=attention");
    assert_eq!(filtered["current"], serde_json::json!(["Pending 4"]));
    assert_eq!(
        filtered["states"],
        serde_json::json!(["pending", "pending", "pending", "pending"])
    );

    let (status, page, _) = get(&console, "/octo", Some(&session));
    assert_eq!(status, 200);
    assert_no_canary(&[("the org view".to_owned(), page)]);

    // The repository's tab: the dashboard redrawn by the action's renderer from the kept
    // facts, each row's counts and never a resource; its pictures embedded.
    let tab = browser.run(READ_THE_DASHBOARD_TAB, &[&console.url, &session]);
    assert_eq!(tab["title"], "infra · Sluiceway console");
    assert_eq!(tab["headings"], serde_json::json!(["infra"]));
    let rows: Vec<&str> = tab["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert_eq!(
        rows[4..],
        ["Deploy all 4 pending stacks", "Rescan all stacks"],
        "four rows, then the bulk box and the rescan box: {tab}"
    );
    assert!(
        rows.iter().any(|r| r.starts_with(&format!("{HOSTILE} ·"))),
        "{tab}"
    );
    assert!(
        rows.iter().any(|r| r.starts_with("network · 3 creates")),
        "{tab}"
    );
    assert_eq!(
        tab["fetched"],
        serde_json::json!([]),
        "every picture is embedded"
    );
    assert_eq!(tab["dialogs"], serde_json::json!([]), "no name ran");
    let (_, page, _) = get(&console, "/octo/infra", Some(&session));
    assert!(
        !page.contains(RESOURCE_CANARY) && !page.contains(CANARY),
        "{page}"
    );

    // A stack's page reads its preview live: the resource is named, as on the
    // dashboard, and the value it is created with never is.
    let (status, page, _) = get(&console, "/octo/infra/stacks/network", Some(&session));
    assert_eq!(status, 200, "{page}");
    assert!(page.contains(RESOURCE_CANARY), "{page}");
    assert!(!page.contains(CANARY), "a value reached the stack's page");
}

#[test]
fn a_page_needs_a_session_and_membership_and_names_a_bad_address() {
    let bed = Bed::new();
    let (console, session) = an_org_with_a_hostile_stack(&bed);
    let (status, _, location) = get(&console, "/octo", None);
    assert_eq!((status, location.as_deref()), (303, Some("/signin")));

    let (status, page, _) = get(&console, "/octo?state=sunk", Some(&session));
    assert_eq!(status, 400);
    assert!(
        page.contains("The address's state is not one this page knows."),
        "{page}"
    );
    assert!(!page.contains("sunk"), "the request is not echoed");

    let (status, page, _) = get(&console, "/elsewhere", Some(&session));
    assert_eq!(status, 404, "{page}");

    // A form without the session's form token does nothing.
    for (path, form) in [
        ("/octo/infra/rescan", "form_token=guessed"),
        ("/octo/infra/tick", "form_token=guessed&stack=network"),
        (
            "/octo/infra/settings",
            "form_token=guessed&intent=save&dashboard.title=Forged",
        ),
    ] {
        let forged = reqwest::blocking::Client::new()
            .post(format!("{}{path}", console.url))
            .header("cookie", format!("sluiceway_session={session}"))
            .header("content-type", "application/x-www-form-urlencoded")
            .body(form)
            .send()
            .unwrap();
        assert_eq!(forged.status().as_u16(), 403, "{path}");
        assert!(
            forged.text().unwrap().contains("nothing was done"),
            "{path}"
        );
    }
    assert!(
        bed.github
            .deployment_records("sluiceway")
            .unwrap()
            .records
            .is_empty(),
        "no record was opened"
    );
    assert!(
        bed.github
            .pull_request_from("sluiceway/dashboard")
            .unwrap()
            .is_none(),
        "no pull request was opened"
    );

    // bob signs in as a member, then leaves the org: the page is no longer his to read.
    bed.emulator
        .act(github_emulator::Act::AddAccount {
            login: "bob".into(),
            kind: github_emulator::world::AccountKind::User,
        })
        .unwrap();
    member(&bed, "bob");
    let signed = sign_in(&console, "bob");
    let (bobs, _) = set_cookie(&signed, "sluiceway_session").expect("a session");
    bed.emulator
        .act(github_emulator::Act::RemoveMember {
            org: "octo".into(),
            login: "bob".into(),
        })
        .unwrap();
    let (status, page, _) = get(&console, "/octo", Some(&bobs));
    assert_eq!(status, 403);
    assert!(
        page.contains("GitHub does not list you as a member of this org"),
        "{page}"
    );
    assert!(!page.contains("storage:dev"), "{page}");
}

/// What Chromium shows of a stack's page, and what a person does with its tick by
/// keyboard: Tab to the tick, Enter, Undo with Enter while the five seconds run, wait
/// them out, then tick again and let the window close.
const TICK_WITH_UNDO: &str = r#"
const [address, session, stack] = process.argv.slice(2);
const page = await signedIn(address, session);
await page.goto(address + stack);
const report = await page.evaluate(() => ({
  title: document.title,
  headings: [...document.querySelectorAll('h1')].map(h => h.textContent),
  sections: [...document.querySelectorAll('main h2')].map(h => h.textContent),
  changes: [...document.querySelectorAll('section[aria-labelledby=preview] tbody tr')].map(tr => [...tr.cells].map(c => c.textContent)),
}));
const focused = () => page.evaluate(() => document.activeElement.textContent);
const status = () => page.evaluate(() => document.querySelector('form.tick [role=status]').textContent);
for (let i = 0; i < 40 && !(await focused()).startsWith('Tick to deploy'); i++) await page.keyboard.press('Tab');
report.tick = await focused();
await page.keyboard.press('Enter');
report.counting = { status: await status(), focused: await focused() };
await page.keyboard.press('Enter');
report.undone = { status: await status(), focused: await focused() };
await page.waitForTimeout(6500);
report.after = { url: page.url(), status: await status() };
const started = Date.now();
await Promise.all([page.waitForNavigation({ timeout: 15000 }), page.keyboard.press('Enter')]);
report.waited = Date.now() - started;
report.judged = await page.evaluate(() => ({
  heading: document.querySelector('h1').textContent,
  outcome: document.getElementById('outcome').dataset.outcome,
  sentence: document.getElementById('outcome').textContent,
}));
return report;
"#;

#[test]
fn a_tick_on_a_stack_s_page_waits_five_seconds_with_an_undo_then_opens_one_record() {
    let Some(browser) = Browser::find() else {
        return;
    };
    let bed = Bed::new();
    let app = installed_app(&bed);
    let console = Console::of_app(&bed, &app);
    scanned_for_the_app(&bed, &console);
    let signed = sign_in(&console, "alice");
    let (session, _) = set_cookie(&signed, "sluiceway_session").expect("a session");

    let report = browser.run(
        TICK_WITH_UNDO,
        &[&console.url, &session, "/octo/infra/stacks/storage%3Adev"],
    );
    assert_eq!(report["title"], "storage:dev · Sluiceway console");
    assert_eq!(report["headings"], serde_json::json!(["storage:dev"]));
    assert_eq!(
        report["sections"],
        serde_json::json!(["What would change", "Recent deploys"])
    );
    assert!(
        !report["changes"].as_array().unwrap().is_empty(),
        "the preview is read live from the stack's page: {report}"
    );
    assert_eq!(report["tick"], "Tick to deploy");
    assert_eq!(
        report["counting"],
        serde_json::json!({"status": "Ticking in 5 s.", "focused": "Undo"})
    );
    assert_eq!(
        report["undone"],
        serde_json::json!({"status": "Not ticked: nothing was sent.", "focused": "Tick to deploy"})
    );
    assert!(
        report["after"]["url"]
            .as_str()
            .unwrap()
            .ends_with("/octo/infra/stacks/storage%3Adev"),
        "undone, the page stays: {report}"
    );
    assert!(
        report["waited"].as_u64().unwrap() >= 4_500,
        "the form waits its five seconds: {report}"
    );
    assert_eq!(report["judged"]["outcome"], "asked", "{report}");
    assert_eq!(report["judged"]["heading"], "Ticked");

    let records = bed.github.deployment_records("sluiceway").unwrap().records;
    let opened: Vec<_> = records
        .iter()
        .filter(|r| r.task == "sluiceway:storage:dev")
        .collect();
    assert_eq!(
        opened.len(),
        1,
        "one record, for the tick not undone: {records:?}"
    );

    // The record's delivery reaches the audit log: read by keyboard, filtered by a link,
    // and downloaded as CSV.
    let started = std::time::Instant::now();
    while !get(&console, "/octo/-/audit", Some(&session))
        .1
        .contains("storage:dev")
    {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "the log never heard of the tick"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    let log = browser.run(READ_THE_AUDIT_LOG, &[&console.url, &session]);
    assert_eq!(log["title"], "Audit log · Sluiceway console");
    assert_eq!(
        log["rows"],
        serde_json::json!([["infra", "storage:dev", "ticked by alice"]]),
        "{log}"
    );
    assert_eq!(log["filtered"], "?repo=infra&stack=storage%3Adev", "{log}");
    let csv = log["csv"].as_str().unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("at,repository,stack,who,commit,result,outside the dashboard,record")
    );
    let line = lines.next().unwrap();
    assert!(
        line.contains(",infra,storage:dev,ticked by alice,"),
        "{csv}"
    );
    assert_eq!(lines.next(), None);

    // The repository's rescan: asked once the tick's run has ended, and not again while
    // the run it asked for is queued.
    let filter = sluiceway_github::RunsFilter {
        event: Some("workflow_dispatch".into()),
        status: None,
    };
    for run in bed.github.workflow_runs("sluiceway.yml", &filter).unwrap() {
        end_run(&bed, run.id);
    }
    let rescans = browser.run(RESCAN_TWICE, &[&console.url, &session]);
    assert_eq!(
        rescans["outcomes"],
        serde_json::json!(["asked", "refused"]),
        "{rescans}"
    );
    let (_, log, _) = get(&console, "/octo/-/audit?repo=infra", Some(&session));
    assert_eq!(
        log.matches("infra · alice asked for a full scan (console)")
            .count(),
        1,
        "the rescan asked, and only it, is in the log: {log}"
    );
}

/// The audit log as Chromium shows it, the stack's filter followed by keyboard, and the
/// CSV its link downloads.
const READ_THE_AUDIT_LOG: &str = r#"
const [address, session] = process.argv.slice(2);
const fs = require('fs');
const page = await signedIn(address, session, { acceptDownloads: true });
await page.goto(address + '/octo/-/audit');
const report = await page.evaluate(() => ({
  title: document.title,
  rows: [...document.querySelectorAll('main tbody tr')].map(tr => [1, 2, 3].map(i => tr.cells[i].textContent)),
}));
const focused = () => page.evaluate(() => document.activeElement.textContent);
for (let i = 0; i < 40 && (await focused()) !== 'storage:dev'; i++) await page.keyboard.press('Tab');
await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
report.filtered = await page.evaluate(() => location.search);
const [download] = await Promise.all([
  page.waitForEvent('download'),
  page.getByText('Download these lines as CSV').click(),
]);
report.csv = fs.readFileSync(await download.path(), 'utf8');
return report;
"#;

/// The settings editor as a person uses it: the title typed by keyboard, the picture
/// turned off, the live redraw awaited, and Save.
const EDIT_THE_SETTINGS: &str = r#"
const [address, session] = process.argv.slice(2);
const page = await signedIn(address, session);
await page.goto(address + '/octo/infra/settings');
const report = await page.evaluate(() => ({
  title: document.title,
  headings: [...document.querySelectorAll('h1')].map(h => h.textContent),
  file: document.getElementById('key-dashboard-title').value,
  pictures: document.querySelectorAll('div.dashboard img').length,
}));
const focused = () => page.evaluate(() => document.activeElement.id);
for (let i = 0; i < 60 && (await focused()) !== 'key-dashboard-title'; i++) await page.keyboard.press('Tab');
report.reached = await focused();
await page.keyboard.press('ControlOrMeta+A');
await page.keyboard.type('Platform deploys');
await page.selectOption('#key-dashboard-personality', 'off');
await page.waitForFunction(() => document.querySelectorAll('div.dashboard img').length === 0, null, { timeout: 10000 });
report.redrawn = await page.evaluate(() => document.querySelectorAll('div.dashboard img').length);
await Promise.all([page.waitForNavigation(), page.getByText('Save as a pull request').click()]);
report.saved = await page.evaluate(() => ({
  heading: document.querySelector('h1').textContent,
  outcome: document.getElementById('outcome').dataset.outcome,
  changes: [...document.querySelectorAll('main li')].map(li => li.textContent),
}));
return report;
"#;

#[test]
fn the_settings_editor_redraws_live_and_saves_one_pull_request_that_keeps_every_comment() {
    let Some(browser) = Browser::find() else {
        return;
    };
    let bed = Bed::new();
    let app = installed_app(&bed);
    let console = Console::of_app(&bed, &app);
    scanned_for_the_app(&bed, &console);
    let signed = sign_in(&console, "alice");
    let (session, _) = set_cookie(&signed, "sluiceway_session").expect("a session");

    let report = browser.run(EDIT_THE_SETTINGS, &[&console.url, &session]);
    assert_eq!(report["title"], "Settings · Sluiceway console");
    assert_eq!(report["headings"], serde_json::json!(["Settings"]));
    assert_eq!(report["file"], "Quickstart deploys", "the file's value");
    assert_eq!(report["reached"], "key-dashboard-title", "by Tab: {report}");
    assert!(report["pictures"].as_u64().unwrap() > 0, "{report}");
    assert_eq!(
        report["redrawn"], 0,
        "the redraw follows personality: {report}"
    );
    assert_eq!(report["saved"]["outcome"], "opened", "{report}");
    assert_eq!(
        report["saved"]["changes"],
        serde_json::json!([
            "dashboard.personality set to false",
            "dashboard.title set to \"Platform deploys\""
        ])
    );

    let opened = bed
        .github
        .pull_request_from("sluiceway/dashboard")
        .unwrap()
        .expect("one pull request");
    let file = bed
        .github
        .file_at("sluiceway.yaml", "sluiceway/dashboard")
        .unwrap()
        .unwrap();
    let main = bed
        .github
        .file_at("sluiceway.yaml", "main")
        .unwrap()
        .unwrap();
    assert!(file.contains("title: Platform deploys"), "{file}");
    assert!(file.contains("personality: false"), "{file}");
    let comments = |text: &str| -> Vec<String> {
        text.lines()
            .filter(|l| l.trim_start().starts_with('#'))
            .map(str::to_owned)
            .collect()
    };
    assert!(!comments(&main).is_empty());
    assert_eq!(comments(&file), comments(&main), "every comment is kept");
    let (_, log, _) = get(&console, "/octo/-/audit", Some(&session));
    assert!(
        log.contains(&format!(
            "alice opened pull request #{} to change 2 settings (console)",
            opened.number
        )),
        "{log}"
    );
}

/// The repository's tab's rescan, pressed by keyboard twice in a row: what each said.
const RESCAN_TWICE: &str = r#"
const [address, session] = process.argv.slice(2);
const page = await signedIn(address, session);
const focused = () => page.evaluate(() => document.activeElement.textContent);
const outcomes = [];
for (let time = 0; time < 2; time++) {
  await page.goto(address + '/octo/infra');
  for (let i = 0; i < 40 && (await focused()) !== 'Rescan every stack'; i++) await page.keyboard.press('Tab');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  outcomes.push(await page.evaluate(() => document.getElementById('outcome').dataset.outcome));
}
return { outcomes };
"#;

/// The repository's tab as Chromium shows it: its rows' first lines, and any picture
/// it would fetch rather than hold.
const READ_THE_DASHBOARD_TAB: &str = r#"
const [address, session] = process.argv.slice(2);
const page = await signedIn(address, session);
const dialogs = [];
page.on('dialog', async d => { dialogs.push(d.message()); await d.dismiss(); });
await page.goto(address + '/octo/infra');
const report = await page.evaluate(() => ({
  title: document.title,
  headings: [...document.querySelectorAll('h1')].map(h => h.textContent),
  rows: [...document.querySelectorAll('section.dashboard li.task-list-item')].map(li => li.textContent.trim().split('\n')[0]),
  fetched: [...document.querySelectorAll('main img, main source')].map(i => i.getAttribute('src') || i.getAttribute('srcset')).filter(a => !a.startsWith('data:')),
}));
report.dialogs = dialogs;
return report;
"#;

/// Every page a person opens, in the dark scheme: its title, its one `h1`, its ground,
/// where the first Tab lands, and any dialog a name opened.
const EVERY_PAGE: &str = r#"
const [address, session, ...paths] = process.argv.slice(2);
const page = await signedIn(address, session, { colorScheme: 'dark' });
const dialogs = [];
page.on('dialog', async d => { dialogs.push(d.message()); await d.dismiss(); });
const pages = {};
for (const path of paths) {
  await page.goto(address + path);
  await page.keyboard.press('Tab');
  pages[path] = await page.evaluate(() => ({
    title: document.title,
    headings: document.querySelectorAll('h1').length,
    ground: getComputedStyle(document.body).backgroundColor,
    first: document.activeElement.tagName,
    lang: document.documentElement.lang,
  }));
}
return { pages, dialogs };
"#;

#[test]
fn every_page_has_a_title_one_heading_the_dark_scheme_and_a_first_stop_for_the_keyboard() {
    let Some(browser) = Browser::find() else {
        return;
    };
    let bed = Bed::new();
    let (console, session) = an_org_with_a_hostile_stack(&bed);
    let hostile: String = HOSTILE
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let paths = [
        "/octo".to_owned(),
        "/octo?state=pending&by=repository".to_owned(),
        "/octo/infra".to_owned(),
        "/octo/infra/stacks/storage%3Adev".to_owned(),
        format!("/octo/infra/stacks/{hostile}"),
        "/octo/-/audit".to_owned(),
        "/octo/infra/settings".to_owned(),
        "/tokens".to_owned(),
        "/octo/nowhere".to_owned(),
    ];
    let mut args = vec![console.url.as_str(), session.as_str()];
    args.extend(paths.iter().map(String::as_str));
    let report = browser.run(EVERY_PAGE, &args);
    for path in &paths {
        let page = &report["pages"][path.as_str()];
        assert!(
            page["title"]
                .as_str()
                .is_some_and(|t| t.ends_with(" · Sluiceway console")),
            "{path}: {page}"
        );
        assert_eq!(page["headings"], 1, "{path}: {page}");
        assert_eq!(page["ground"], "rgb(13, 17, 23)", "{path}: {page}");
        assert_eq!(
            page["first"], "A",
            "{path}: the first Tab reaches a link: {page}"
        );
        assert_eq!(page["lang"], "en", "{path}");
    }
    assert_eq!(
        report["pages"][format!("/octo/infra/stacks/{hostile}").as_str()]["title"],
        format!("{HOSTILE} · Sluiceway console")
    );
    assert_eq!(report["dialogs"], serde_json::json!([]), "no name ran");
}

/// One row per stack: its cells' text.
fn rows(view: &Value) -> Vec<Vec<&str>> {
    view["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|row| {
            row.as_array()
                .unwrap()
                .iter()
                .map(|c| c.as_str().unwrap())
                .collect()
        })
        .collect()
}

/// A page as a browser with `session` gets it, following no redirect: the status, the
/// text and the `Location`.
fn get(console: &Console, path: &str, session: Option<&str>) -> (u16, String, Option<String>) {
    let client = reqwest::blocking::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let mut request = client.get(format!("{}{path}", console.url));
    if let Some(session) = session {
        request = request.header("cookie", format!("sluiceway_session={session}"));
    }
    let response = request.send().unwrap();
    let status = response.status().as_u16();
    let location = response
        .headers()
        .get("location")
        .map(|l| l.to_str().unwrap().to_owned());
    (status, response.text().unwrap(), location)
}
