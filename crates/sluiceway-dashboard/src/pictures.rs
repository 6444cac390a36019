//! The header pictures, drawn by code: a lock in a canal, its gate and water showing the
//! state, crates waiting at the gate, and a sign on a pole when deletes or replaces wait.
//! Light and dark versions of every picture; each stays far under 10 KB. They are
//! written to `assets/header/` and served from the repository at the release's tag.

use std::fmt::Write as _;

use crate::header::{HeaderState, MOST_CRATES, picture_name};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Light,
    Dark,
}

impl Theme {
    pub fn name(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }
}

struct Palette {
    sky: &'static str,
    wall: &'static str,
    water: &'static str,
    gate: &'static str,
    crate_fill: &'static str,
    crate_line: &'static str,
    ink: &'static str,
}

fn palette(theme: Theme) -> Palette {
    match theme {
        Theme::Light => Palette {
            sky: "#f6f8fa",
            wall: "#8c959f",
            water: "#54aeff",
            gate: "#57606a",
            crate_fill: "#d4a72c",
            crate_line: "#7d4e00",
            ink: "#24292f",
        },
        Theme::Dark => Palette {
            sky: "#0d1117",
            wall: "#484f58",
            water: "#1f6feb",
            gate: "#8b949e",
            crate_fill: "#bb8009",
            crate_line: "#e3b341",
            ink: "#c9d1d9",
        },
    }
}

/// The lamp on the gate: the state's colour.
fn lamp(state: HeaderState) -> &'static str {
    match state {
        HeaderState::Failing => "#cf222e",
        HeaderState::Deploying | HeaderState::Queued => "#0969da",
        HeaderState::Pending => "#bf8700",
        HeaderState::Drift => "#bc4c00",
        HeaderState::FirstRun => "#8c959f",
        HeaderState::InSync => "#1a7f37",
    }
}

/// Every picture: `(file name, SVG)`, the spinners included.
pub fn all() -> Vec<(String, String)> {
    let mut pictures = Vec::new();
    for theme in [Theme::Light, Theme::Dark] {
        for state in HeaderState::ALL {
            if state.shows_crates() {
                for crates in 0..=MOST_CRATES + 1 {
                    for (deletes, replaces) in
                        [(false, false), (true, false), (false, true), (true, true)]
                    {
                        let name = format!(
                            "{}-{}.svg",
                            picture_name(state, crates, deletes, replaces),
                            theme.name()
                        );
                        pictures.push((name, svg(state, crates, deletes, replaces, theme)));
                    }
                }
            } else {
                pictures.push((
                    format!("{}-{}.svg", state.name(), theme.name()),
                    svg(state, 0, false, false, theme),
                ));
            }
        }
        pictures.push((
            format!("spinner-{}.svg", theme.name()),
            spinner(theme, true),
        ));
        pictures.push((
            format!("spinner-queued-{}.svg", theme.name()),
            spinner(theme, false),
        ));
    }
    pictures
}

/// One header picture, 880×160.
pub fn svg(
    state: HeaderState,
    crates: usize,
    deletes: bool,
    replaces: bool,
    theme: Theme,
) -> String {
    let p = palette(theme);
    let mut s = String::new();
    let _ = write!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"880\" height=\"160\" viewBox=\"0 0 880 160\"><rect width=\"880\" height=\"160\" fill=\"{}\"/>",
        p.sky
    );
    // The water: high behind a closed gate, level when the gate is open, low and
    // uneven when something changed outside the code, none before the first scan.
    let (upstream, downstream) = match state {
        HeaderState::Pending | HeaderState::Queued | HeaderState::Failing => (58, 96),
        HeaderState::Deploying | HeaderState::InSync => (78, 78),
        HeaderState::Drift => (70, 104),
        HeaderState::FirstRun => (160, 160),
    };
    if state != HeaderState::FirstRun {
        let _ = write!(
            s,
            "<rect x=\"40\" y=\"{upstream}\" width=\"400\" height=\"{}\" fill=\"{}\"/>",
            136 - upstream,
            p.water
        );
        let _ = write!(
            s,
            "<rect x=\"460\" y=\"{downstream}\" width=\"380\" height=\"{}\" fill=\"{}\" opacity=\"0.8\"/>",
            136 - downstream,
            p.water
        );
    }
    // Canal floor and walls.
    let _ = write!(
        s,
        "<rect x=\"20\" y=\"136\" width=\"840\" height=\"12\" fill=\"{}\"/>",
        p.wall
    );
    let _ = write!(
        s,
        "<rect x=\"20\" y=\"40\" width=\"20\" height=\"108\" fill=\"{}\"/><rect x=\"840\" y=\"40\" width=\"20\" height=\"108\" fill=\"{}\"/>",
        p.wall, p.wall
    );
    // The gate: down when closed, lifted when a deploy goes through.
    let gate_y = if matches!(state, HeaderState::Deploying | HeaderState::InSync) {
        12
    } else {
        40
    };
    let _ = write!(
        s,
        "<rect x=\"436\" y=\"20\" width=\"8\" height=\"128\" fill=\"{}\"/><rect x=\"476\" y=\"20\" width=\"8\" height=\"128\" fill=\"{}\"/>",
        p.wall, p.wall
    );
    let _ = write!(
        s,
        "<rect x=\"444\" y=\"{gate_y}\" width=\"32\" height=\"96\" rx=\"3\" fill=\"{}\"/>",
        p.gate
    );
    let _ = write!(
        s,
        "<circle cx=\"460\" cy=\"12\" r=\"9\" fill=\"{}\"/>",
        lamp(state)
    );
    // Crates waiting upstream of the gate; more than five is a heap.
    let shown = crates.min(MOST_CRATES);
    for i in 0..shown {
        let x = 380 - i * 62;
        let y = upstream - 30;
        let _ = write!(
            s,
            "<g transform=\"translate({x} {y})\"><rect width=\"48\" height=\"40\" rx=\"2\" fill=\"{}\" stroke=\"{}\" stroke-width=\"3\"/><path d=\"M0 0L48 40M48 0L0 40\" stroke=\"{}\" stroke-width=\"2\"/></g>",
            p.crate_fill, p.crate_line, p.crate_line
        );
    }
    if crates > MOST_CRATES {
        let _ = write!(
            s,
            "<g transform=\"translate(66 {})\"><rect width=\"40\" height=\"32\" rx=\"2\" fill=\"{}\" stroke=\"{}\" stroke-width=\"3\"/></g><text x=\"86\" y=\"{}\" font-family=\"sans-serif\" font-size=\"16\" text-anchor=\"middle\" fill=\"{}\">more</text>",
            upstream - 22,
            p.crate_fill,
            p.crate_line,
            upstream - 28,
            p.ink
        );
    }
    // Signs on a pole at the gate: a diamond for deletes, a triangle for replaces.
    if deletes || replaces {
        let _ = write!(
            s,
            "<rect x=\"520\" y=\"30\" width=\"4\" height=\"{}\" fill=\"{}\"/>",
            downstream - 30,
            p.gate
        );
        if deletes {
            let _ = write!(
                s,
                "<path d=\"M522 10L538 26L522 42L506 26Z\" fill=\"#cf222e\"/><path d=\"M516 20L528 32M528 20L516 32\" stroke=\"#ffffff\" stroke-width=\"3\"/>"
            );
        }
        if replaces {
            let y = if deletes { 46 } else { 12 };
            let _ = write!(
                s,
                "<path d=\"M522 {y}L540 {}L504 {}Z\" fill=\"#bf8700\"/>",
                y + 30,
                y + 30
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// A small crate for a row's first line: turning while it deploys, still while queued.
pub fn spinner(theme: Theme, turning: bool) -> String {
    let p = palette(theme);
    let motion = if turning {
        "<animateTransform attributeName=\"transform\" type=\"rotate\" from=\"0 8 8\" to=\"360 8 8\" dur=\"2s\" repeatCount=\"indefinite\"/>"
    } else {
        ""
    };
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"16\" height=\"16\" viewBox=\"0 0 16 16\"><g><rect x=\"2\" y=\"2\" width=\"12\" height=\"12\" rx=\"1\" fill=\"{}\" stroke=\"{}\" stroke-width=\"1.5\"/><path d=\"M2 2L14 14M14 2L2 14\" stroke=\"{}\"/>{motion}</g></svg>",
        p.crate_fill, p.crate_line, p.crate_line
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_picture_is_small_and_named_once() {
        let pictures = all();
        let mut names: Vec<&String> = pictures.iter().map(|(n, _)| n).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), pictures.len());
        for (name, svg) in &pictures {
            assert!(svg.len() < 10 * 1024, "{name} is {} bytes", svg.len());
            assert!(svg.starts_with("<svg ") && svg.ends_with("</svg>"));
        }
        assert!(
            names
                .iter()
                .any(|n| *n == "pending-more-deletes-replaces-dark.svg")
        );
        assert!(names.iter().any(|n| *n == "in-sync-light.svg"));
    }
}
