//! Any bytes as a webhook delivery's body, signed with the console's secret: reading it
//! never panics; a dashboard it finds names only stacks whose markers the body holds; and
//! the same bytes under a signature made with another secret are refused before anything
//! of them is read.
#![no_main]

use libfuzzer_sys::fuzz_target;
use sluiceway_console::webhook::{self, Headers, News, WebhookError};

const SECRET: &[u8] = b"fuzzing";

fuzz_target!(|data: &[u8]| {
    let headers = |signature| Headers {
        event: Some("issues"),
        delivery: Some("00000000-0000-4000-8000-000000000001"),
        signature,
    };
    let signed = webhook::sign(SECRET, data);
    if let Ok(delivery) = webhook::read(SECRET, headers(Some(&signed)), data) {
        if let News::Dashboard { dashboard, .. } = delivery.news {
            let body = String::from_utf8_lossy(data);
            for stack in &dashboard.stacks {
                assert!(!stack.stack.is_empty());
                assert!(body.contains("sluiceway:row"), "a stack comes from a row marker");
            }
        }
    }
    let forged = webhook::sign(b"another", data);
    assert_eq!(
        webhook::read(SECRET, headers(Some(&forged)), data).err(),
        Some(WebhookError::BadSignature)
    );
});
