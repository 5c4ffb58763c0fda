//! SVG Gantt chart of a recorded schedule: one row per CPU core and one for the GPU, spans
//! coloured by task, runlist updates hatched on the CPU and marked on the GPU row,
//! preemptions as red triangles, releases and completions as ticks, time axis in ms.

use crate::model::{SimModel, Time, NS_PER_MS};
use crate::trace::{CpuKind, GpuKind, Mark, Trace};
use std::fmt::Write;

const PALETTE: [&str; 12] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac", "#1f77b4", "#8c564b",
];

/// The colour of task `i`.
pub fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Text for XML character data and attribute values (the SVG writers of the workspace use it).
pub fn xml(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A tick step (ns) giving about 10 ticks over `span` ns: 1, 2 or 5 times a power of ten.
fn tick_step(span: Time) -> Time {
    let target = (span / 10).max(1);
    let mut p: Time = 1;
    loop {
        for m in [1, 2, 5] {
            if p * m >= target {
                return p * m;
            }
        }
        p *= 10;
    }
}

fn fmt_ms(t: Time) -> String {
    let whole = t / NS_PER_MS;
    let frac = t % NS_PER_MS;
    if frac == 0 {
        format!("{whole}")
    } else {
        let s = format!("{whole}.{frac:06}");
        s.trim_end_matches('0').to_string()
    }
}

/// Renders `[from, to)` of the trace. `title` is put on top (escaped).
pub fn render(model: &SimModel, tr: &Trace, from: Time, to: Time, title: &str) -> String {
    let to = to.max(from + 1);
    let (left, width, row_h, top) = (110.0f64, 1100.0f64, 30.0f64, 50.0f64);
    let cpus = model.cpus as usize;
    let rows = cpus + 1;
    let legend_h = 24.0 * model.tasks.len().div_ceil(4) as f64 + 30.0;
    let height = top + rows as f64 * row_h + 40.0 + legend_h;
    let x = |t: Time| left + (t.clamp(from, to) - from) as f64 * width / (to - from) as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height}" font-family="sans-serif" font-size="12">"#,
        w = left + width + 20.0
    );
    s.push_str(r##"<defs><pattern id="upd" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#ffffff" fill-opacity="0.0"/><line x1="0" y1="0" x2="0" y2="6" stroke="#000" stroke-width="2.5"/></pattern></defs>"##);
    s.push('\n');
    let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
    let _ = writeln!(
        s,
        r#"<text x="{left}" y="20" font-size="14" font-weight="bold">{}</text>"#,
        xml(title)
    );
    // Rows.
    for r in 0..rows {
        let y = top + r as f64 * row_h;
        let label = if r < cpus {
            format!("CPU {r}")
        } else {
            "GPU".to_string()
        };
        let _ = writeln!(
            s,
            r##"<rect x="{left}" y="{y}" width="{width}" height="{h}" fill="{f}" stroke="#ccc"/><text x="10" y="{ty}">{label}</text>"##,
            h = row_h - 4.0,
            f = if r % 2 == 0 { "#fafafa" } else { "#f3f3f3" },
            ty = y + row_h / 2.0 + 2.0
        );
    }
    let row_y = |r: usize| top + r as f64 * row_h;
    // CPU spans.
    for sp in tr.cpu.iter().filter(|sp| sp.end > from && sp.start < to) {
        let (x0, x1) = (x(sp.start), x(sp.end));
        let y = row_y(sp.core as usize) + 2.0;
        let h = row_h - 8.0;
        let name = xml(&model.tasks[sp.task].name);
        let (opacity, what) = match sp.kind {
            CpuKind::Work => (1.0, "cpu"),
            CpuKind::Misc => (0.75, "misc (G^m)"),
            CpuKind::Update => (1.0, "runlist update"),
            CpuKind::Spin => (0.3, "busy wait"),
        };
        let _ = writeln!(
            s,
            r#"<rect x="{x0:.2}" y="{y}" width="{w:.2}" height="{h}" fill="{c}" fill-opacity="{opacity}"><title>{name}: {what} {a}-{b} ms</title></rect>"#,
            w = (x1 - x0).max(0.5),
            c = colour(sp.task),
            a = fmt_ms(sp.start),
            b = fmt_ms(sp.end)
        );
        if sp.kind == CpuKind::Update {
            let _ = writeln!(
                s,
                r#"<rect x="{x0:.2}" y="{y}" width="{w:.2}" height="{h}" fill="url(#upd)"/>"#,
                w = (x1 - x0).max(0.5)
            );
        }
    }
    // GPU spans.
    let gy = row_y(cpus) + 2.0;
    for sp in tr.gpu.iter().filter(|sp| sp.end > from && sp.start < to) {
        let (x0, x1) = (x(sp.start), x(sp.end));
        let (fill, what) = match sp.kind {
            GpuKind::Run => (colour(sp.task), "GPU"),
            GpuKind::Switch => ("#888888", "context switch into"),
        };
        let _ = writeln!(
            s,
            r#"<rect x="{x0:.2}" y="{gy}" width="{w:.2}" height="{h}" fill="{fill}"><title>{what} {name} {a}-{b} ms</title></rect>"#,
            w = (x1 - x0).max(0.5),
            h = row_h - 8.0,
            name = xml(&model.tasks[sp.task].name),
            a = fmt_ms(sp.start),
            b = fmt_ms(sp.end)
        );
    }
    // Markers.
    for mk in tr.markers.iter().filter(|m| m.time >= from && m.time <= to) {
        let xm = x(mk.time);
        match &mk.mark {
            Mark::Preempt { core, by, victim } => {
                let y = row_y(*core as usize);
                let _ = writeln!(
                    s,
                    r#"<path d="M{a:.2},{y} L{b:.2},{y} L{xm:.2},{c} Z" fill="red"><title>{v} preempted by {w} at {t} ms</title></path>"#,
                    a = xm - 4.0,
                    b = xm + 4.0,
                    c = y + 6.0,
                    v = xml(&model.tasks[*victim].name),
                    w = xml(&model.tasks[*by].name),
                    t = fmt_ms(mk.time)
                );
            }
            Mark::Runlist { by, tsgs } => {
                let names: Vec<String> = tsgs.iter().map(|&t| xml(&model.tasks[t].name)).collect();
                let _ = writeln!(
                    s,
                    r#"<line x1="{xm:.2}" y1="{a}" x2="{xm:.2}" y2="{b}" stroke="black" stroke-width="1.5" stroke-dasharray="3,2"><title>runlist from {w}'s update at {t} ms: {n}</title></line>"#,
                    a = gy - 4.0,
                    b = gy + row_h - 4.0,
                    w = xml(&model.tasks[*by].name),
                    t = fmt_ms(mk.time),
                    n = names.join(", ")
                );
            }
            Mark::Boost { task, by } | Mark::Unboost { task, by } => {
                // A small diamond on the owner's core row: filled (boost) or hollow (unboost).
                let up = matches!(mk.mark, Mark::Boost { .. });
                let y = row_y(model.tasks[*task].cpu as usize) + row_h / 2.0 - 2.0;
                let _ = writeln!(
                    s,
                    r#"<path d="M{xm:.2},{a:.2} l4,4 l-4,4 l-4,-4 Z" fill="{f}" stroke="black" stroke-width="0.8"><title>{n} {w} by {b}'s update at {t} ms</title></path>"#,
                    a = y - 4.0,
                    f = if up { colour(*task) } else { "white" },
                    n = xml(&model.tasks[*task].name),
                    w = if up { "boosted" } else { "unboosted" },
                    b = xml(&model.tasks[*by].name),
                    t = fmt_ms(mk.time)
                );
            }
            Mark::Release { task } => {
                let y = row_y(model.tasks[*task].cpu as usize) + row_h - 6.0;
                let _ = writeln!(
                    s,
                    r#"<path d="M{xm:.2},{y} l-3,6 l6,0 Z" fill="{c}" stroke="black" stroke-width="0.5"><title>{n} released at {t} ms</title></path>"#,
                    c = colour(*task),
                    n = xml(&model.tasks[*task].name),
                    t = fmt_ms(mk.time)
                );
            }
            Mark::Finish {
                task,
                response,
                miss,
            } => {
                let y = row_y(model.tasks[*task].cpu as usize);
                let _ = writeln!(
                    s,
                    r#"<line x1="{xm:.2}" y1="{y}" x2="{xm:.2}" y2="{b}" stroke="{c}" stroke-width="2"><title>{n} finished at {t} ms, response {r} ms{m}</title></line>"#,
                    b = y + row_h - 4.0,
                    c = if *miss { "red" } else { "black" },
                    n = xml(&model.tasks[*task].name),
                    t = fmt_ms(mk.time),
                    r = fmt_ms(*response),
                    m = if *miss { " (deadline miss)" } else { "" }
                );
            }
        }
    }
    // Axis.
    let ay = top + rows as f64 * row_h + 4.0;
    let _ = writeln!(
        s,
        r#"<line x1="{left}" y1="{ay}" x2="{r}" y2="{ay}" stroke="black"/>"#,
        r = left + width
    );
    let step = tick_step(to - from);
    let mut t = from.div_ceil(step) * step;
    while t <= to {
        let xt = x(t);
        let _ = writeln!(
            s,
            r#"<line x1="{xt:.2}" y1="{ay}" x2="{xt:.2}" y2="{b}" stroke="black"/><text x="{xt:.2}" y="{ty}" text-anchor="middle">{l}</text>"#,
            b = ay + 5.0,
            ty = ay + 18.0,
            l = fmt_ms(t)
        );
        t += step;
    }
    let _ = writeln!(
        s,
        r#"<text x="{r}" y="{ty}" text-anchor="end">ms</text>"#,
        r = left + width,
        ty = ay + 32.0
    );
    // Legend.
    let ly = ay + 44.0;
    for (i, task) in model.tasks.iter().enumerate() {
        let lx = left + (i % 4) as f64 * 270.0;
        let y = ly + (i / 4) as f64 * 24.0;
        let prio = match task.priority {
            Some(p) => format!("prio {p}"),
            None => "best-effort".to_string(),
        };
        let _ = writeln!(
            s,
            r#"<rect x="{lx}" y="{y}" width="14" height="14" fill="{c}"/><text x="{tx}" y="{ty}">{n} (CPU {cpu}, {prio})</text>"#,
            c = colour(i),
            tx = lx + 20.0,
            ty = y + 12.0,
            n = xml(&task.name),
            cpu = task.cpu
        );
    }
    let _ = writeln!(
        s,
        r##"<text x="10" y="{y}" font-size="11" fill="#555">solid: CPU work; lighter: G^m; faint: busy wait; hatched: runlist update at the ceiling; grey on GPU: context switch; dashed: runlist reaches the GPU; red triangle: preemption; ticks: release (below) and completion</text>"##,
        y = height - 8.0
    );
    s.push_str("</svg>\n");
    s
}
