//! A small hand-written SVG line chart for the schedulability sweeps.

use gcaps_sim::svg::xml;
use std::fmt::Write;

/// A line chart: one line with markers per series over shared x values.
pub struct Chart<'a> {
    /// Title, drawn on top.
    pub title: &'a str,
    /// A smaller line under the title (e.g. sample size and seed).
    pub subtitle: &'a str,
    /// X-axis label, with units.
    pub x_label: &'a str,
    /// Y-axis label, with units.
    pub y_label: &'a str,
    /// The x values (ticks are drawn at these).
    pub xs: &'a [f64],
    /// `(name, y values in 0..=100)` per series, `ys.len() == xs.len()`.
    pub series: Vec<(&'a str, Vec<f64>)>,
}

/// Colour-blind-safe palette (Okabe-Ito, then four of Tol's muted colours for the
/// empirical `sim_*` series of `--empirical`).
const COLOURS: [&str; 12] = [
    "#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442",
    "#882255", "#44AA99", "#999933", "#AA4499",
];

const W: f64 = 880.0;
const H: f64 = 520.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = W - 210.0;
const TOP: f64 = 76.0;
const BOTTOM: f64 = H - 70.0;

fn fmt_num(x: f64) -> String {
    let s = format!("{:.3}", x);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.into()
    }
}

/// Draws marker number `k` (shape cycles circle, square, triangle, diamond)
/// centred at (x, y).
fn marker(out: &mut String, k: usize, x: f64, y: f64, colour: &str) {
    let r = 5.0;
    let _ = match k % 4 {
        0 => writeln!(
            out,
            r#"<circle cx="{x:.1}" cy="{y:.1}" r="{r}" fill="{colour}"/>"#
        ),
        1 => writeln!(
            out,
            r#"<rect x="{:.1}" y="{:.1}" width="{}" height="{}" fill="{colour}"/>"#,
            x - r,
            y - r,
            2.0 * r,
            2.0 * r
        ),
        2 => writeln!(
            out,
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{colour}"/>"#,
            x,
            y - r * 1.2,
            x - r * 1.1,
            y + r * 0.9,
            x + r * 1.1,
            y + r * 0.9
        ),
        _ => writeln!(
            out,
            r#"<polygon points="{:.1},{:.1} {:.1},{:.1} {:.1},{:.1} {:.1},{:.1}" fill="{colour}" stroke="white" stroke-width="0.8"/>"#,
            x,
            y - r * 1.3,
            x + r * 1.3,
            y,
            x,
            y + r * 1.3,
            x - r * 1.3,
            y
        ),
    };
}

/// Renders the chart as a standalone SVG document.
pub fn render(c: &Chart) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">"#
    );
    let _ = writeln!(o, r#"<rect width="{W}" height="{H}" fill="white"/>"#);
    // Title and subtitle.
    let mid = (LEFT + RIGHT) / 2.0;
    let _ = writeln!(
        o,
        r#"<text x="{mid}" y="30" font-size="19" font-weight="bold" text-anchor="middle">{}</text>"#,
        xml(c.title)
    );
    let _ = writeln!(
        o,
        r##"<text x="{mid}" y="52" font-size="13" fill="#444" text-anchor="middle">{}</text>"##,
        xml(c.subtitle)
    );

    let (xmin, xmax) =
        c.xs.iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
                (a.min(x), b.max(x))
            });
    let (xmin, xmax) = if xmin.is_finite() && xmax > xmin {
        (xmin, xmax)
    } else {
        (xmin - 1.0, xmin + 1.0)
    };
    let pad = 0.04 * (xmax - xmin);
    let sx = |x: f64| LEFT + (x - (xmin - pad)) / (xmax - xmin + 2.0 * pad) * (RIGHT - LEFT);
    let sy = |y: f64| BOTTOM - y / 100.0 * (BOTTOM - TOP);

    // Horizontal gridlines and y ticks every 10 %.
    for k in 0..=10 {
        let v = 10.0 * k as f64;
        let y = sy(v);
        let stroke = if k == 0 { "#000" } else { "#ddd" };
        let _ = writeln!(
            o,
            r#"<line x1="{LEFT}" y1="{y:.1}" x2="{RIGHT}" y2="{y:.1}" stroke="{stroke}" stroke-width="1"/>"#
        );
        let _ = writeln!(
            o,
            r#"<text x="{:.1}" y="{:.1}" font-size="13" text-anchor="end">{}</text>"#,
            LEFT - 8.0,
            y + 4.5,
            v
        );
    }
    // Vertical gridlines and x ticks at the data points.
    for &x in c.xs {
        let px = sx(x);
        let _ = writeln!(
            o,
            r##"<line x1="{px:.1}" y1="{TOP}" x2="{px:.1}" y2="{BOTTOM}" stroke="#eee" stroke-width="1"/>"##
        );
        let _ = writeln!(
            o,
            r##"<line x1="{px:.1}" y1="{BOTTOM}" x2="{px:.1}" y2="{:.1}" stroke="#000"/>"##,
            BOTTOM + 5.0
        );
        let _ = writeln!(
            o,
            r#"<text x="{px:.1}" y="{:.1}" font-size="13" text-anchor="middle">{}</text>"#,
            BOTTOM + 21.0,
            fmt_num(x)
        );
    }
    // Axes frame.
    let _ = writeln!(
        o,
        r##"<rect x="{LEFT}" y="{TOP}" width="{}" height="{}" fill="none" stroke="#000"/>"##,
        RIGHT - LEFT,
        BOTTOM - TOP
    );
    // Axis labels.
    let _ = writeln!(
        o,
        r#"<text x="{mid}" y="{:.1}" font-size="15" text-anchor="middle">{}</text>"#,
        BOTTOM + 48.0,
        xml(c.x_label)
    );
    let ymid = (TOP + BOTTOM) / 2.0;
    let _ = writeln!(
        o,
        r#"<text x="24" y="{ymid}" font-size="15" text-anchor="middle" transform="rotate(-90 24 {ymid})">{}</text>"#,
        xml(c.y_label)
    );

    // Series: polyline then markers.
    for (k, (_, ys)) in c.series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let dash = if k % 2 == 1 {
            r#" stroke-dasharray="7 4""#
        } else {
            ""
        };
        let pts: Vec<String> =
            c.xs.iter()
                .zip(ys)
                .map(|(&x, &y)| format!("{:.1},{:.1}", sx(x), sy(y)))
                .collect();
        let _ = writeln!(
            o,
            r#"<polyline points="{}" fill="none" stroke="{colour}" stroke-width="2.2"{dash}/>"#,
            pts.join(" ")
        );
        for (&x, &y) in c.xs.iter().zip(ys) {
            marker(&mut o, k, sx(x), sy(y), colour);
        }
    }

    // Legend, right of the plot area.
    let lx = RIGHT + 18.0;
    let row = 26.0;
    let lh = 16.0 + row * c.series.len() as f64;
    let _ = writeln!(
        o,
        r##"<rect x="{lx}" y="{TOP}" width="{}" height="{lh}" fill="white" stroke="#999"/>"##,
        W - lx - 10.0
    );
    for (k, (name, _)) in c.series.iter().enumerate() {
        let colour = COLOURS[k % COLOURS.len()];
        let y = TOP + 20.0 + row * k as f64;
        let dash = if k % 2 == 1 {
            r#" stroke-dasharray="7 4""#
        } else {
            ""
        };
        let _ = writeln!(
            o,
            r#"<line x1="{:.1}" y1="{y:.1}" x2="{:.1}" y2="{y:.1}" stroke="{colour}" stroke-width="2.2"{dash}/>"#,
            lx + 10.0,
            lx + 44.0
        );
        marker(&mut o, k, lx + 27.0, y, colour);
        let _ = writeln!(
            o,
            r#"<text x="{:.1}" y="{:.1}" font-size="14">{}</text>"#,
            lx + 52.0,
            y + 5.0,
            xml(name)
        );
    }
    o.push_str("</svg>\n");
    o
}
