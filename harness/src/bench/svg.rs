//! Hand-written SVG charts for `bench report`: a scatter plot and a
//! horizontal bar chart, linear or log axes. (A plotting crate would bring a
//! font stack for two chart types.)

use std::fmt::Write;

const W: f64 = 760.0;
/// Distinct colours for up to 16 series (every strategy family of a report
/// gets its own); more wrap around.
const PALETTE: &[&str] = &[
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
    "#17becf", "#000000", "#f5c400", "#00a087", "#a6cee3", "#b15928", "#6a3d9a",
];

pub fn color(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

#[derive(Clone, Debug)]
pub struct Axis {
    pub label: String,
    pub min: f64,
    pub max: f64,
    pub log: bool,
}

impl Axis {
    /// An axis over `values` (log when they span more than `log_span`
    /// times and are all positive), starting at 0 when linear.
    pub fn fit(label: &str, values: impl Iterator<Item = f64>, log_span: f64) -> Axis {
        let v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
        let max = v.iter().copied().fold(f64::MIN, f64::max);
        let min_pos = v.iter().copied().filter(|x| *x > 0.0).fold(f64::MAX, f64::min);
        let all_pos = !v.is_empty() && v.iter().all(|x| *x > 0.0);
        if v.is_empty() || max <= 0.0 {
            return Axis {
                label: label.into(),
                min: 0.0,
                max: 1.0,
                log: false,
            };
        }
        if all_pos && max / min_pos > log_span {
            Axis {
                label: label.into(),
                min: 10f64.powf(min_pos.log10().floor()),
                max: 10f64.powf(max.log10().ceil()),
                log: true,
            }
        } else {
            let step = nice_step(max / 5.0);
            Axis {
                label: label.into(),
                min: 0.0,
                max: (max / step).ceil() * step,
                log: false,
            }
        }
    }

    /// Position of `v` between pixel `a` (at min) and `b` (at max).
    fn map(&self, v: f64, a: f64, b: f64) -> f64 {
        let t = if self.log {
            let (lo, hi) = (self.min.log10(), self.max.log10());
            if hi > lo {
                (v.max(self.min).log10() - lo) / (hi - lo)
            } else {
                0.5
            }
        } else if self.max > self.min {
            (v - self.min) / (self.max - self.min)
        } else {
            0.5
        };
        a + t.clamp(0.0, 1.0) * (b - a)
    }

    fn ticks(&self) -> Vec<f64> {
        if self.log {
            let (lo, hi) = (self.min.log10().round() as i32, self.max.log10().round() as i32);
            let mut t = Vec::new();
            for e in lo..=hi {
                let p = 10f64.powi(e);
                t.push(p);
                if hi - lo <= 2 && e < hi {
                    t.push(2.0 * p);
                    t.push(5.0 * p);
                }
            }
            t
        } else {
            let step = nice_step((self.max - self.min) / 5.0);
            let mut t = Vec::new();
            let mut v = (self.min / step).ceil() * step;
            while v <= self.max + step * 1e-9 {
                t.push(v);
                v += step;
            }
            t
        }
    }
}

fn nice_step(raw: f64) -> f64 {
    if raw <= 0.0 || !raw.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    let f = raw / p;
    p * if f <= 1.0 {
        1.0
    } else if f <= 2.0 {
        2.0
    } else if f <= 5.0 {
        5.0
    } else {
        10.0
    }
}

/// `1.5k`, `20M`, `0.25`.
pub fn short_number(v: f64) -> String {
    let a = v.abs();
    if a > 0.0 && a < 0.01 {
        // 0.001 -> 1e-3, 0.005 -> 5e-3
        let e = a.log10().floor() as i32;
        let m = v / 10f64.powi(e);
        return if (m - m.round()).abs() < 1e-9 {
            format!("{}e{e}", m.round())
        } else {
            format!("{m:.1}e{e}")
        };
    }
    let (x, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let s = if x == x.round() {
        format!("{x:.0}")
    } else if (x * 10.0) == (x * 10.0).round() {
        format!("{x:.1}")
    } else {
        format!("{x:.2}")
    };
    format!("{s}{suffix}")
}

pub fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn open(out: &mut String, h: f64, title: &str) {
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{h}" viewBox="0 0 {W} {h}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(out, r#"<rect width="{W}" height="{h}" fill="white"/>"#);
    let _ = writeln!(
        out,
        r#"<text x="{}" y="22" text-anchor="middle" font-size="15" font-weight="bold">{}</text>"#,
        W / 2.0,
        escape(title)
    );
}

/// One series of a scatter plot.
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

/// A scatter plot with a legend on the right.
pub fn scatter(title: &str, x: &Axis, y: &Axis, series: &[Series]) -> String {
    let h = 480.0;
    let (l, r, t, b) = (70.0, W - 200.0, 40.0, h - 55.0);
    let mut s = String::new();
    open(&mut s, h, title);
    grid(&mut s, x, y, (l, r, t, b));
    for (i, se) in series.iter().enumerate() {
        let c = color(i);
        for &(px, py) in &se.points {
            if !(px.is_finite() && py.is_finite()) {
                continue;
            }
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="{c}" fill-opacity="0.7" stroke="{c}"><title>{}: ({}, {})</title></circle>"#,
                x.map(px, l, r),
                y.map(py, b, t),
                escape(&se.name),
                short_number(px),
                short_number(py)
            );
        }
        let ly = t + 10.0 + 18.0 * i as f64;
        let _ = writeln!(
            s,
            r#"<circle cx="{:.1}" cy="{ly:.1}" r="5" fill="{c}"/><text x="{:.1}" y="{:.1}">{}</text>"#,
            r + 20.0,
            r + 30.0,
            ly + 4.0,
            escape(&se.name)
        );
    }
    s.push_str("</svg>\n");
    s
}

/// Axes, grid lines, tick labels and axis labels of a plot area.
fn grid(s: &mut String, x: &Axis, y: &Axis, (l, r, t, b): (f64, f64, f64, f64)) {
    for v in x.ticks() {
        let px = x.map(v, l, r);
        let _ = writeln!(
            s,
            r##"<line x1="{px:.1}" y1="{t}" x2="{px:.1}" y2="{b}" stroke="#e0e0e0"/><text x="{px:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            b + 16.0,
            short_number(v)
        );
    }
    for v in y.ticks() {
        let py = y.map(v, b, t);
        let _ = writeln!(
            s,
            r##"<line x1="{l}" y1="{py:.1}" x2="{r}" y2="{py:.1}" stroke="#e0e0e0"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"##,
            l - 6.0,
            py + 4.0,
            short_number(v)
        );
    }
    let _ = writeln!(
        s,
        r##"<rect x="{l}" y="{t}" width="{:.1}" height="{:.1}" fill="none" stroke="#333"/>"##,
        r - l,
        b - t
    );
    let log = |a: &Axis| if a.log { " (log scale)" } else { "" };
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}{}</text>"#,
        (l + r) / 2.0,
        b + 40.0,
        escape(&x.label),
        log(x)
    );
    let _ = writeln!(
        s,
        r#"<text transform="translate(18 {:.1}) rotate(-90)" text-anchor="middle">{}{}</text>"#,
        (t + b) / 2.0,
        escape(&y.label),
        log(y)
    );
}

/// One bar: label, value (bar length) and individual values (dots).
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub dots: Vec<f64>,
    pub color: usize,
}

/// Horizontal bars with each run as a dot on its bar.
pub fn bars(title: &str, axis: &Axis, bars: &[Bar]) -> String {
    let row = 26.0;
    let h = 90.0 + row * bars.len().max(1) as f64;
    let (l, r, t, b) = (230.0, W - 30.0, 40.0, h - 50.0);
    let mut s = String::new();
    open(&mut s, h, title);
    // x ticks only (the y axis is categorical)
    for v in axis.ticks() {
        let px = axis.map(v, l, r);
        let _ = writeln!(
            s,
            r##"<line x1="{px:.1}" y1="{t}" x2="{px:.1}" y2="{b}" stroke="#e0e0e0"/><text x="{px:.1}" y="{:.1}" text-anchor="middle">{}</text>"##,
            b + 16.0,
            short_number(v)
        );
    }
    for (i, bar) in bars.iter().enumerate() {
        let y0 = t + 6.0 + row * i as f64;
        let x0 = axis.map(axis.min, l, r);
        let x1 = axis.map(bar.value, l, r);
        let c = color(bar.color);
        let _ = writeln!(
            s,
            r#"<rect x="{x0:.1}" y="{y0:.1}" width="{:.1}" height="{:.1}" fill="{c}" fill-opacity="0.45"><title>{}: {}</title></rect>"#,
            (x1 - x0).max(0.5),
            row - 8.0,
            escape(&bar.label),
            short_number(bar.value)
        );
        for &d in &bar.dots {
            let _ = writeln!(
                s,
                r##"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{c}" stroke="#222" stroke-width="0.5"/>"##,
                axis.map(d, l, r),
                y0 + (row - 8.0) / 2.0
            );
        }
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            l - 8.0,
            y0 + (row - 8.0) / 2.0 + 4.0,
            escape(&bar.label)
        );
    }
    let _ = writeln!(
        s,
        r##"<line x1="{l}" y1="{b}" x2="{r}" y2="{b}" stroke="#333"/><line x1="{l}" y1="{t}" x2="{l}" y2="{b}" stroke="#333"/>"##
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">{}{}</text>"#,
        (l + r) / 2.0,
        b + 38.0,
        escape(&axis.label),
        if axis.log { " (log scale)" } else { "" }
    );
    s.push_str("</svg>\n");
    s
}

/// A line chart: one polyline per series (name, points); log-scale y when
/// `log_y`, log2-scale x when `log_x`. Empty when there is no point.
pub fn lines(
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[(String, Vec<(f64, f64)>)],
    log_y: bool,
    log_x: bool,
) -> String {
    let (w, h, ml, mr, mt, mb) = (760.0, 420.0, 70.0, 230.0, 40.0, 50.0);
    let pts: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|s| s.1.iter().copied())
        .filter(|&(_, y)| !log_y || y > 0.0)
        .collect();
    if pts.is_empty() {
        return String::new();
    }
    let tx = |x: f64| if log_x { x.log2() } else { x };
    let ty = |y: f64| if log_y { y.log10() } else { y };
    let (mut x0, mut x1) = (f64::MAX, f64::MIN);
    let (mut y0, mut y1) = (f64::MAX, f64::MIN);
    for &(x, y) in &pts {
        x0 = x0.min(tx(x));
        x1 = x1.max(tx(x));
        y0 = y0.min(ty(y));
        y1 = y1.max(ty(y));
    }
    if log_y {
        y0 = y0.floor();
        y1 = y1.ceil().max(y0 + 1.0);
    } else {
        y0 = y0.min(0.0);
        y1 = if y1 <= 1.0 && y0 >= 0.0 { 1.0 } else { y1 * 1.05 };
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    let px = |x: f64| ml + (tx(x) - x0) / (x1 - x0) * (w - ml - mr);
    let py = |y: f64| h - mb - (ty(y) - y0) / (y1 - y0) * (h - mt - mb);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"11\">"
    );
    let _ = writeln!(s, "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>");
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"20\" font-size=\"14\" text-anchor=\"middle\">{}</text>",
        (ml + w - mr) / 2.0,
        escape(title)
    );
    // Axes and ticks.
    let _ = writeln!(
        s,
        "<line x1=\"{ml}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/><line x1=\"{ml}\" y1=\"{mt}\" x2=\"{ml}\" y2=\"{}\" stroke=\"black\"/>",
        h - mb,
        w - mr,
        h - mb,
        h - mb
    );
    let mut xs: Vec<f64> = pts.iter().map(|p| p.0).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    for &x in &xs {
        let _ = writeln!(
            s,
            "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#ddd\"/><text x=\"{0}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>",
            px(x),
            mt,
            h - mb,
            h - mb + 15.0,
            x
        );
    }
    let yticks: Vec<f64> = if log_y {
        (y0 as i32..=y1 as i32).map(|e| 10f64.powi(e)).collect()
    } else {
        (0..=5).map(|i| y0 + (y1 - y0) * i as f64 / 5.0).collect()
    };
    for &y in &yticks {
        let label = if log_y {
            format!("{y}")
        } else if y1 <= 1.0 {
            format!("{y:.1}")
        } else {
            format!("{y:.0}")
        };
        let _ = writeln!(
            s,
            "<line x1=\"{ml}\" y1=\"{0}\" x2=\"{1}\" y2=\"{0}\" stroke=\"#ddd\"/><text x=\"{2}\" y=\"{3}\" text-anchor=\"end\">{4}</text>",
            py(y),
            w - mr,
            ml - 5.0,
            py(y) + 4.0,
            label
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
        (ml + w - mr) / 2.0,
        h - 12.0,
        escape(xlabel)
    );
    let _ = writeln!(
        s,
        "<text x=\"16\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 16 {0})\">{1}</text>",
        (mt + h - mb) / 2.0,
        escape(ylabel)
    );
    for (i, (name, data)) in series.iter().enumerate() {
        let c = color(i);
        let d: Vec<String> = data
            .iter()
            .filter(|&&(_, y)| !log_y || y > 0.0)
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        if !d.is_empty() {
            let _ = writeln!(
                s,
                "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"1.8\" points=\"{}\"/>",
                d.join(" ")
            );
            for p in &d {
                let (a, b) = p.split_once(',').unwrap();
                let _ = writeln!(s, "<circle cx=\"{a}\" cy=\"{b}\" r=\"2.5\" fill=\"{c}\"/>");
            }
        }
        let ly = mt + 14.0 * i as f64;
        let _ = writeln!(
            s,
            "<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"{c}\" stroke-width=\"2\"/><text x=\"{3}\" y=\"{4}\">{5}</text>",
            w - mr + 10.0,
            ly,
            w - mr + 28.0,
            w - mr + 32.0,
            ly + 4.0,
            escape(name)
        );
    }
    let _ = writeln!(s, "</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_and_numbers() {
        let a = Axis::fit("x", [3.0, 47.0].into_iter(), 100.0);
        assert!(!a.log && a.min == 0.0 && a.max == 50.0, "{a:?}");
        let a = Axis::fit("x", [3.0, 4700.0].into_iter(), 100.0);
        assert!(a.log && a.min == 1.0 && a.max == 10000.0, "{a:?}");
        assert_eq!(short_number(1500.0), "1.5k");
        assert_eq!(short_number(2e7), "20M");
        assert_eq!(short_number(0.001), "1e-3");
        assert_eq!(short_number(0.05), "0.05");
        let svg = scatter(
            "t",
            &a,
            &a,
            &[Series {
                name: "a<b".into(),
                points: vec![(10.0, 100.0)],
            }],
        );
        assert!(svg.starts_with("<svg") && svg.contains("a&lt;b") && svg.trim_end().ends_with("</svg>"));
    }
}
