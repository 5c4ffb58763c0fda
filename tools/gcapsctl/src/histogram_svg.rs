//! The update-delay histogram as a self-contained SVG figure, like the GCAPS paper's Fig. 12
//! ("Histogram of runlist update overhead"): one bar per log2 bucket from the first to the last
//! non-empty one, the bucket bounds on the x axis, the number of updates on the y axis, and
//! the sample count, min, mean and max in the title.
use crate::output::human_ns;
use libgcaps::DelayHistogram;
use std::fmt::Write as _;

const WIDTH: f64 = 720.0;
const HEIGHT: f64 = 420.0;
const LEFT: f64 = 80.0;
const RIGHT: f64 = 20.0;
const TOP: f64 = 50.0;
const BOTTOM: f64 = 100.0;

/// The SVG document of `h`.
pub fn render(h: &DelayHistogram) -> String {
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let (x0, y0) = (LEFT, TOP + plot_h); // origin of the axes
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        s,
        r#"<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>"#
    );
    let title = match h.mean_ns() {
        Some(mean) => format!(
            "Runlist update delay ε: {} updates, min {}, mean {}, max {}",
            h.count,
            human_ns(h.min_ns as f64),
            human_ns(mean),
            human_ns(h.max_ns as f64)
        ),
        None => "Runlist update delay ε: no samples".to_string(),
    };
    text(&mut s, WIDTH / 2.0, 24.0, "middle", "", &title, 14);
    // axes
    let _ = writeln!(
        s,
        r#"<path d="M{x0} {TOP} V{y0} H{}" fill="none" stroke="black"/>"#,
        x0 + plot_w
    );
    text(
        &mut s,
        x0 + plot_w / 2.0,
        HEIGHT - 12.0,
        "middle",
        "",
        "update delay ε per update (log2 buckets: lower bounds)",
        13,
    );
    text(
        &mut s,
        18.0,
        TOP + plot_h / 2.0,
        "middle",
        &format!(r#" transform="rotate(-90 18 {})""#, TOP + plot_h / 2.0),
        "updates",
        13,
    );
    let Some((first, last)) = h.used_range() else {
        text(
            &mut s,
            x0 + plot_w / 2.0,
            TOP + plot_h / 2.0,
            "middle",
            "",
            "no samples",
            13,
        );
        s.push_str("</svg>\n");
        return s;
    };
    // y ticks: a round step, the top tick at or above the highest bar
    let most = h.buckets[first..=last]
        .iter()
        .copied()
        .max()
        .unwrap_or(1)
        .max(1);
    let step = nice_step(most);
    let top = most.div_ceil(step) * step;
    let y_of = |n: u64| y0 - plot_h * n as f64 / top as f64;
    let mut tick = 0;
    while tick <= top {
        let y = y_of(tick);
        let _ = writeln!(
            s,
            r##"<path d="M{} {y:.1} H{x0}" stroke="black"/><path d="M{x0} {y:.1} H{}" stroke="#ddd"/>"##,
            x0 - 5.0,
            x0 + plot_w
        );
        text(&mut s, x0 - 8.0, y + 4.0, "end", "", &tick.to_string(), 12);
        tick += step;
    }
    // bars, with the lower bound of each bucket under its left edge
    let n = last - first + 1;
    let bar_w = plot_w / n as f64;
    for (i, b) in (first..=last).enumerate() {
        let count = h.buckets[b];
        let x = x0 + bar_w * i as f64;
        let y = y_of(count);
        let (lo, hi) = DelayHistogram::bounds_ns(b);
        let range = match hi {
            Some(hi) => format!("{} to {}", human_ns(lo as f64), human_ns(hi as f64)),
            None => format!("{} and above", human_ns(lo as f64)),
        };
        let _ = writeln!(
            s,
            r##"<rect x="{:.1}" y="{y:.1}" width="{:.1}" height="{:.1}" fill="#4878a8" stroke="#234"><title>{}: {count}</title></rect>"##,
            x + 1.0,
            (bar_w - 2.0).max(1.0),
            y0 - y,
            escape(&range)
        );
        if count > 0 {
            text(
                &mut s,
                x + bar_w / 2.0,
                y - 4.0,
                "middle",
                "",
                &count.to_string(),
                11,
            );
        }
        tick_label(&mut s, x, y0, &human_ns(lo as f64));
    }
    if let Some(hi) = DelayHistogram::bounds_ns(last).1 {
        tick_label(&mut s, x0 + plot_w, y0, &human_ns(hi as f64));
    }
    s.push_str("</svg>\n");
    s
}

/// A tick on the x axis at `x` with its label slanted below it.
fn tick_label(s: &mut String, x: f64, y0: f64, label: &str) {
    let _ = writeln!(
        s,
        r#"<path d="M{x:.1} {y0} V{}" stroke="black"/>"#,
        y0 + 5.0
    );
    let y = y0 + 16.0;
    text(
        s,
        x,
        y,
        "end",
        &format!(r#" transform="rotate(-40 {x:.1} {y})""#),
        label,
        11,
    );
}

fn text(s: &mut String, x: f64, y: f64, anchor: &str, extra: &str, body: &str, size: u32) {
    let _ = writeln!(
        s,
        r#"<text x="{x:.1}" y="{y:.1}" text-anchor="{anchor}" font-size="{size}"{extra}>{}</text>"#,
        escape(body)
    );
}

/// A round tick step (1, 2 or 5 times a power of ten) giving at most about 6 ticks up to `max`.
fn nice_step(max: u64) -> u64 {
    let mut p = 1u64;
    loop {
        for m in [1, 2, 5] {
            let step = m * p;
            if max.div_ceil(step) <= 6 {
                return step;
            }
        }
        p = p.saturating_mul(10);
    }
}

/// Text for XML character data and attribute values.
fn escape(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hist() -> DelayHistogram {
        let mut h = DelayHistogram {
            count: 18,
            sum_ns: 18 * 5000,
            min_ns: 1500,
            max_ns: 70_000,
            ..Default::default()
        };
        h.buckets[1] = 3;
        h.buckets[3] = 14;
        h.buckets[7] = 1;
        h
    }

    /// The `<rect>` bars (skipping the background) as (x, height, title).
    fn bars(svg: &str) -> Vec<(f64, f64, String)> {
        svg.lines()
            .filter(|l| l.starts_with("<rect x="))
            .map(|l| {
                let attr = |k: &str| -> f64 {
                    let i = l.find(&format!(" {k}=\"")).unwrap() + k.len() + 3;
                    l[i..i + l[i..].find('"').unwrap()].parse().unwrap()
                };
                let t = &l[l.find("<title>").unwrap() + 7..l.find("</title>").unwrap()];
                (attr("x"), attr("height"), t.to_string())
            })
            .collect()
    }

    #[test]
    fn one_bar_per_bucket_of_the_used_range_with_proportional_heights() {
        let svg = render(&hist());
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.trim_end().ends_with("</svg>"));
        let b = bars(&svg);
        assert_eq!(b.len(), 7, "buckets 1..=7");
        assert_eq!(b[0].2, "1.02 µs to 2.05 µs: 3");
        assert_eq!(b[2].2, "4.10 µs to 8.19 µs: 14");
        assert_eq!(b[6].2, "65.5 µs to 131 µs: 1");
        assert_eq!(b[1].1, 0.0);
        // heights proportional to the counts (top tick 15 for a highest bar of 14)
        let unit = b[2].1 / 14.0;
        assert!((b[0].1 - 3.0 * unit).abs() < 0.11, "{b:?}");
        assert!(b.windows(2).all(|w| w[0].0 < w[1].0), "bars left to right");
        assert!(svg.contains("18 updates, min 1.50 µs, mean 5.00 µs, max 70.0 µs"));
        assert!(svg.contains(">updates</text>"));
        assert!(
            svg.contains(">131 µs</text>"),
            "upper bound of the last bar"
        );
    }

    #[test]
    fn empty_histogram_still_has_axes() {
        let svg = render(&DelayHistogram::default());
        assert!(bars(&svg).is_empty());
        assert!(svg.contains("no samples"));
        assert!(svg.contains("<path d=\"M80 50 V320"));
    }

    #[test]
    fn tick_steps_are_round() {
        assert_eq!(nice_step(1), 1);
        assert_eq!(nice_step(6), 1);
        assert_eq!(nice_step(7), 2);
        assert_eq!(nice_step(14), 5);
        assert_eq!(nice_step(1000), 200);
        assert_eq!(escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
