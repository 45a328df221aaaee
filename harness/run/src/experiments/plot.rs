//! Charts for the bench reports, drawn with plotters' SVG backend: scatter
//! plots, line charts (quantile plots among them) and horizontal bars, on
//! linear or logarithmic axes.
//!
//! Two things are added to what plotters draws, because a report is read
//! in a browser: a hover layer (an invisible circle over each point whose
//! `<title>` names the run: instance and full configuration) and the legend
//! as `data-legend` on the `<svg>` element, each hover circle carrying its
//! series in `data-series`. The HTML report's browser check reads both to
//! prove that every legend entry has points on the page.

use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Distinct colours for up to 24 series (as many as a bar chart has bars
/// before it groups them); more wrap around.
const PALETTE: &[(u8, u8, u8)] = &[
    (0x1f, 0x77, 0xb4),
    (0xff, 0x7f, 0x0e),
    (0x2c, 0xa0, 0x2c),
    (0xd6, 0x27, 0x28),
    (0x94, 0x67, 0xbd),
    (0x8c, 0x56, 0x4b),
    (0xe3, 0x77, 0xc2),
    (0x7f, 0x7f, 0x7f),
    (0xbc, 0xbd, 0x22),
    (0x17, 0xbe, 0xcf),
    (0x00, 0x00, 0x00),
    (0xf5, 0xc4, 0x00),
    (0x00, 0xa0, 0x87),
    (0xa6, 0xce, 0xe3),
    (0xb1, 0x59, 0x28),
    (0x6a, 0x3d, 0x9a),
    (0x39, 0x3b, 0x79),
    (0x63, 0x79, 0x39),
    (0x8c, 0x6d, 0x31),
    (0x84, 0x3c, 0x39),
    (0x7b, 0x41, 0x73),
    (0x52, 0x54, 0xa3),
    (0xe7, 0x96, 0x9c),
    (0x8c, 0xa2, 0x52),
];

fn color(i: usize) -> RGBColor {
    let (r, g, b) = PALETTE[i % PALETTE.len()];
    RGBColor(r, g, b)
}

/// Width of every chart; the legend takes the right `LEGEND_W` pixels.
const W: u32 = 800;
const LEGEND_W: u32 = 250;
/// Height of a chart whose legend fits in it (a longer legend makes the
/// chart taller).
const H: u32 = 440;
/// A legend label is wrapped at this many characters: what the legend's
/// width holds in its font (size 12, drawn by plotters about 9.7 pixels
/// high), with room for wide letters.
const LEGEND_CHARS: usize = 38;
/// Pixels from one legend line to the next, and between two entries.
const LEGEND_LINE: u32 = 15;
const LEGEND_GAP: u32 = 4;
/// Where the legend's first line is.
const LEGEND_TOP: u32 = 40;

#[derive(Clone, Debug)]
pub struct Axis {
    pub label: String,
    pub min: f64,
    pub max: f64,
    /// Logarithmic, base 10 (or 2 with `base2`).
    pub log: bool,
    pub base2: bool,
}

impl Axis {
    /// An axis over `values` (log when they span more than `log_span`
    /// times and are all positive), starting at 0 when linear.
    pub fn fit(label: &str, values: impl Iterator<Item = f64>, log_span: f64) -> Axis {
        let v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
        let max = v.iter().copied().fold(f64::MIN, f64::max);
        let min_pos = v.iter().copied().filter(|x| *x > 0.0).fold(f64::MAX, f64::min);
        let all_pos = !v.is_empty() && v.iter().all(|x| *x > 0.0);
        let linear = |max: f64| Axis {
            label: label.into(),
            min: 0.0,
            max: if max > 0.0 { max * 1.05 } else { 1.0 },
            log: false,
            base2: false,
        };
        if v.is_empty() || max <= 0.0 {
            return linear(1.0);
        }
        if all_pos && max / min_pos > log_span {
            Axis {
                label: label.into(),
                min: 10f64.powf(min_pos.log10().floor()),
                max: 10f64.powf(max.log10().ceil()),
                log: true,
                base2: false,
            }
        } else {
            linear(max)
        }
    }

    /// A base-2 log axis over positive `values` (breadth bounds 1, 2, 4, ...).
    pub fn log2(label: &str, values: impl Iterator<Item = f64>) -> Axis {
        let v: Vec<f64> = values.filter(|x| x.is_finite() && *x > 0.0).collect();
        let lo = v.iter().copied().fold(f64::MAX, f64::min);
        let hi = v.iter().copied().fold(f64::MIN, f64::max);
        if v.is_empty() {
            return Axis::fit(label, std::iter::empty(), 1.0);
        }
        Axis {
            label: label.into(),
            min: 2f64.powf(lo.log2().floor()),
            max: 2f64.powf(hi.log2().ceil().max(lo.log2().floor() + 1.0)),
            log: true,
            base2: true,
        }
    }
}

/// `1.5k`, `20M`, `0.25`.
pub fn short_number(v: f64) -> String {
    let a = v.abs();
    if a > 0.0 && a < 0.01 {
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

/// One series of a scatter or line chart. `tips`, when not empty, holds one
/// hover text per point (else the point's series and coordinates).
#[derive(Clone, Debug, Default)]
pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
    pub tips: Vec<String>,
}

impl Series {
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Series {
        Series {
            name: name.into(),
            points,
            tips: Vec::new(),
        }
    }
}

/// A point of the hover layer: pixel position, series, text.
struct Tip {
    at: (i32, i32),
    series: String,
    text: String,
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type DrawResult = Result<(), String>;

fn err<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// What a chart draws inside its axes.
#[derive(Clone, Copy)]
enum Mark {
    Points,
    /// Points and the diagonal y = x (two measures of one thing compared).
    PointsDiagonal,
    Lines,
}

/// Draws `series` on axes `x`, `y` into `area`, collecting the hover tips.
fn draw_xy<XS, YS>(
    area: &Area,
    title: &str,
    (x, y): (&Axis, &Axis),
    (xs, ys): (XS, YS),
    series: &[Series],
    mark: Mark,
    tips: &mut Vec<Tip>,
) -> DrawResult
where
    XS: AsRangedCoord<Value = f64>,
    YS: AsRangedCoord<Value = f64>,
    XS::CoordDescType: ValueFormatter<f64>,
    YS::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 15))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(60)
        .build_cartesian_2d(xs, ys)
        .map_err(err)?;
    let fmt = |v: &f64| short_number(*v);
    chart
        .configure_mesh()
        .x_desc(x.label.as_str())
        .y_desc(y.label.as_str())
        .x_label_formatter(&fmt)
        .y_label_formatter(&fmt)
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    if let Mark::PointsDiagonal = mark {
        let (lo, hi) = (x.min.max(y.min), x.max.min(y.max));
        chart
            .draw_series(LineSeries::new([(lo, lo), (hi, hi)], BLACK.mix(0.4)))
            .map_err(err)?;
    }
    for (i, s) in series.iter().enumerate() {
        let c = color(i);
        match mark {
            Mark::Points | Mark::PointsDiagonal => {
                chart
                    .draw_series(s.points.iter().map(|p| Circle::new(*p, 3, c.mix(0.75).filled())))
                    .map_err(err)?;
            }
            Mark::Lines => {
                chart
                    .draw_series(LineSeries::new(s.points.iter().copied(), c.stroke_width(2)))
                    .map_err(err)?;
                // Markers only where they can be told apart.
                if s.points.len() <= 30 {
                    chart
                        .draw_series(s.points.iter().map(|p| Circle::new(*p, 3, c.filled())))
                        .map_err(err)?;
                }
            }
        }
        for (k, p) in s.points.iter().enumerate() {
            let text = s
                .tips
                .get(k)
                .cloned()
                .unwrap_or_else(|| format!("{}: ({}, {})", s.name, short_number(p.0), short_number(p.1)));
            tips.push(Tip {
                at: chart.backend_coord(p),
                series: s.name.clone(),
                text,
            });
        }
    }
    Ok(())
}

/// `label` in lines of at most `width` characters, broken at spaces (a
/// longer word is broken where it reaches the width).
fn wrap(label: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in label.split(' ') {
        let mut word: Vec<char> = word.chars().collect();
        let len = line.chars().count();
        if len > 0 && len + 1 + word.len() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        while word.len() > width {
            let rest = word.split_off(width);
            lines.push(word.iter().collect());
            word = rest;
        }
        line.extend(word);
    }
    lines.push(line);
    lines
}

/// The legend's labels, wrapped.
fn legend_lines(names: &[(String, RGBColor)]) -> Vec<Vec<String>> {
    names.iter().map(|(n, _)| wrap(n, LEGEND_CHARS)).collect()
}

/// The height a chart needs for its legend.
fn legend_height(lines: &[Vec<String>]) -> u32 {
    LEGEND_TOP
        + lines
            .iter()
            .map(|l| l.len() as u32 * LEGEND_LINE + LEGEND_GAP)
            .sum::<u32>()
}

/// The legend, drawn in its own area right of the plot: every label whole,
/// wrapped over as many lines as it needs.
fn draw_legend(area: &Area, names: &[(String, RGBColor)]) -> DrawResult {
    let style = ("sans-serif", 12).into_font().color(&BLACK);
    let mut y = LEGEND_TOP as i32;
    for ((_, c), lines) in names.iter().zip(legend_lines(names)) {
        area.draw(&Circle::new((10, y), 4, c.filled())).map_err(err)?;
        for line in lines {
            area.draw(&Text::new(line, (20, y - 7), style.clone()))
                .map_err(err)?;
            y += LEGEND_LINE as i32;
        }
        y += LEGEND_GAP as i32;
    }
    Ok(())
}

/// Renders a chart: `body` draws into the plot area; the legend lists
/// `legend`; the hover layer and `data-legend` are added to the SVG.
fn render(
    legend: &[(String, RGBColor)],
    body: impl FnOnce(&Area, &mut Vec<Tip>) -> DrawResult,
) -> Result<String, String> {
    let mut svg = String::new();
    let mut tips = Vec::new();
    let height = H.max(legend_height(&legend_lines(legend)));
    {
        let root = SVGBackend::with_string(&mut svg, (W, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let (plot, side) = root.split_horizontally(W - LEGEND_W);
        body(&plot, &mut tips)?;
        draw_legend(&side, legend)?;
        root.present().map_err(err)?;
    }
    let names: Vec<&str> = legend.iter().map(|(n, _)| n.as_str()).collect();
    let data = serde_json::to_string(&names).map_err(err)?;
    let mut layer = String::from("<g class=\"hover\">\n");
    for t in &tips {
        layer.push_str(&format!(
            "<circle class=\"pt\" cx=\"{}\" cy=\"{}\" r=\"5\" fill=\"transparent\" data-series=\"{}\"><title>{}</title></circle>\n",
            t.at.0,
            t.at.1,
            escape(&t.series),
            escape(&t.text)
        ));
    }
    layer.push_str("</g>\n</svg>");
    let Some(end) = svg.rfind("</svg>") else {
        return Err("plotters wrote no closing </svg>".into());
    };
    svg.replace_range(end.., &layer);
    Ok(svg.replacen(
        "<svg ",
        &format!("<svg class=\"plot\" data-legend=\"{}\" ", escape(&data)),
        1,
    ))
}

fn legend_of(series: &[Series]) -> Vec<(String, RGBColor)> {
    series
        .iter()
        .enumerate()
        .map(|(i, s)| (s.name.clone(), color(i)))
        .collect()
}

/// Draws on the four combinations of linear and log axes.
fn xy_chart(title: &str, x: &Axis, y: &Axis, series: &[Series], mark: Mark) -> String {
    // A legend entry without points says nothing.
    let series: Vec<Series> = series.iter().filter(|s| !s.points.is_empty()).cloned().collect();
    if series.is_empty() {
        return String::new();
    }
    let lin = |a: &Axis| -> RangedCoordf64 { (a.min..a.max).into() };
    let log = |a: &Axis| (a.min..a.max).log_scale().base(if a.base2 { 2.0 } else { 10.0 });
    let result = render(&legend_of(&series), |area, tips| match (x.log, y.log) {
        (false, false) => draw_xy(area, title, (x, y), (lin(x), lin(y)), &series, mark, tips),
        (true, false) => draw_xy(area, title, (x, y), (log(x), lin(y)), &series, mark, tips),
        (false, true) => draw_xy(area, title, (x, y), (lin(x), log(y)), &series, mark, tips),
        (true, true) => draw_xy(area, title, (x, y), (log(x), log(y)), &series, mark, tips),
    });
    // Drawing into a string fails only on a plotters bug; the report says
    // so in place of the chart rather than aborting.
    result.unwrap_or_else(|e| error_svg(title, &e))
}

fn error_svg(title: &str, e: &str) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"40\"><text x=\"10\" y=\"25\">{}: {}</text></svg>",
        escape(title),
        escape(e)
    )
}

/// A scatter plot; empty when no series has a point.
pub fn scatter(title: &str, x: &Axis, y: &Axis, series: &[Series]) -> String {
    xy_chart(title, x, y, series, Mark::Points)
}

/// A scatter plot with the diagonal y = x.
pub fn scatter_with_diagonal(title: &str, x: &Axis, y: &Axis, series: &[Series]) -> String {
    xy_chart(title, x, y, series, Mark::PointsDiagonal)
}

/// A line chart: one polyline per series; log y when `log_y`, log2 x when
/// `log_x`. Empty when there is no point.
pub fn lines(
    title: &str,
    xlabel: &str,
    ylabel: &str,
    series: &[(String, Vec<(f64, f64)>)],
    log_y: bool,
    log_x: bool,
) -> String {
    let series: Vec<Series> = series
        .iter()
        .map(|(n, p)| {
            let mut p = p.clone();
            p.retain(|(x, y)| x.is_finite() && y.is_finite() && (!log_y || *y > 0.0) && (!log_x || *x > 0.0));
            Series::new(n.clone(), p)
        })
        .collect();
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let x = if log_x {
        Axis::log2(xlabel, xs)
    } else {
        Axis::fit(xlabel, xs, f64::INFINITY)
    };
    let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let y = Axis::fit(ylabel, ys, if log_y { 0.0 } else { f64::INFINITY });
    xy_chart(title, &x, &y, &series, Mark::Lines)
}

/// A quantile plot in the manner of BenchExec: per series, its runs'
/// values sorted, the n-th plotted at x = n (how many runs finish within
/// a value).
pub fn quantiles(title: &str, ylabel: &str, series: &[(String, Vec<f64>)]) -> String {
    let series: Vec<Series> = series
        .iter()
        .map(|(n, v)| {
            let mut v: Vec<f64> = v.iter().copied().filter(|x| x.is_finite() && *x > 0.0).collect();
            v.sort_by(f64::total_cmp);
            Series::new(
                n.clone(),
                v.into_iter()
                    .enumerate()
                    .map(|(i, y)| ((i + 1) as f64, y))
                    .collect(),
            )
        })
        .collect();
    let x = Axis::fit(
        "n-th fastest complete run",
        series.iter().flat_map(|s| s.points.iter().map(|p| p.0)),
        f64::INFINITY,
    );
    let y = Axis::fit(
        ylabel,
        series.iter().flat_map(|s| s.points.iter().map(|p| p.1)),
        20.0,
    );
    xy_chart(title, &x, &y, &series, Mark::Lines)
}

/// One bar of a bar chart: its value and the runs it summarises (dots).
pub struct Bar {
    pub label: String,
    pub value: f64,
    pub dots: Vec<f64>,
    pub color: usize,
}

fn draw_bars<XS>(
    area: &Area,
    title: &str,
    axis: &Axis,
    xs: XS,
    bars: &[Bar],
    tips: &mut Vec<Tip>,
) -> DrawResult
where
    XS: AsRangedCoord<Value = f64>,
    XS::CoordDescType: ValueFormatter<f64>,
{
    let n = bars.len() as f64;
    let ys: RangedCoordf64 = (-0.5..n - 0.5).into();
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 14))
        .margin(12)
        .x_label_area_size(42)
        .y_label_area_size(10)
        .build_cartesian_2d(xs, ys)
        .map_err(err)?;
    let fmt = |v: &f64| short_number(*v);
    chart
        .configure_mesh()
        .x_desc(axis.label.as_str())
        .x_label_formatter(&fmt)
        .disable_y_mesh()
        .y_labels(0)
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(err)?;
    let x0 = axis.min;
    for (i, b) in bars.iter().enumerate() {
        // Bars are listed top to bottom.
        let y = n - 1.0 - i as f64;
        let c = color(b.color);
        chart
            .draw_series(std::iter::once(Rectangle::new(
                [(x0, y - 0.35), (b.value.max(x0), y + 0.35)],
                c.mix(0.55).filled(),
            )))
            .map_err(err)?;
        chart
            .draw_series(b.dots.iter().map(|d| Circle::new((*d, y), 2, BLACK.filled())))
            .map_err(err)?;
        // Each bar says what it is and its value, at its start (inside the
        // chart whatever the value), so the chart reads without the legend.
        let label = bar_label(&b.label, b.value);
        chart
            .draw_series(std::iter::once(Text::new(
                label,
                (x0, y + 0.3),
                ("sans-serif", 11).into_font().color(&BLACK),
            )))
            .map_err(err)?;
        tips.push(Tip {
            at: chart.backend_coord(&(b.value.max(x0), y)),
            series: b.label.clone(),
            text: format!("{}: {}", b.label, short_number(b.value)),
        });
    }
    Ok(())
}

/// The text on a bar: its value, then its label when the chart's width
/// holds it whole (else the legend names the bar).
fn bar_label(label: &str, value: f64) -> String {
    const MAX: usize = 48;
    let text = format!("{}  {label}", short_number(value));
    if text.chars().count() <= MAX {
        text
    } else {
        short_number(value)
    }
}

/// A horizontal bar chart with the runs as dots; each bar is labelled with
/// its value and configuration, and the labels are the legend too.
pub fn bars(title: &str, axis: &Axis, bars: &[Bar]) -> String {
    if bars.is_empty() {
        return String::new();
    }
    let legend: Vec<(String, RGBColor)> = bars.iter().map(|b| (b.label.clone(), color(b.color))).collect();
    let lin: RangedCoordf64 = (axis.min..axis.max).into();
    let result = render(&legend, |area, tips| {
        if axis.log {
            draw_bars(area, title, axis, (axis.min..axis.max).log_scale(), bars, tips)
        } else {
            draw_bars(area, title, axis, lin, bars, tips)
        }
    });
    result.unwrap_or_else(|e| error_svg(title, &e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(s: &str, pat: &str) -> usize {
        s.matches(pat).count()
    }

    #[test]
    fn every_point_has_a_hover_target_and_every_legend_entry_points() {
        let series = [
            Series::new("a<b", vec![(1.0, 2.0), (3.0, 4.0)]),
            Series::new("empty", vec![]),
            Series {
                name: "c".into(),
                points: vec![(10.0, 100.0)],
                tips: vec!["c on x.1".into()],
            },
        ];
        let x = Axis::fit("x", series.iter().flat_map(|s| s.points.iter().map(|p| p.0)), 5.0);
        let y = Axis::fit("y", series.iter().flat_map(|s| s.points.iter().map(|p| p.1)), 5.0);
        assert!(x.log && y.log, "the values span more than 5 times");
        let svg = scatter("t", &x, &y, &series);
        assert!(
            svg.starts_with("<svg class=\"plot\""),
            "{}",
            &svg[..80.min(svg.len())]
        );
        assert!(svg.trim_end().ends_with("</svg>"));
        assert_eq!(count(&svg, "class=\"pt\""), 3);
        assert_eq!(count(&svg, "data-series=\"a&lt;b\""), 2);
        assert!(svg.contains("<title>c on x.1</title>"));
        // The empty series is dropped from the legend.
        assert!(
            svg.contains("data-legend=\"[&quot;a&lt;b&quot;,&quot;c&quot;]\""),
            "{svg}"
        );
        assert!(!svg.contains("empty"));
    }

    /// A legend label is never cut: it wraps, and the chart grows to hold
    /// a long legend.
    #[test]
    fn legend_labels_wrap_whole() {
        let label = "dbdfs --dbdfs naive-sound --frontier states --increment 10 (interp)";
        let lines = wrap(label, LEGEND_CHARS);
        assert!(
            lines.len() > 1 && lines.iter().all(|l| l.chars().count() <= LEGEND_CHARS),
            "{lines:?}"
        );
        assert_eq!(lines.join(" "), label);
        assert_eq!(wrap("abcdefgh ij", 3), ["abc", "def", "gh", "ij"]);
        let series: Vec<Series> = (0..20)
            .map(|i| Series::new(format!("{label} #{i}"), vec![(1.0, i as f64)]))
            .collect();
        let x = Axis::fit("x", [1.0].into_iter(), 5.0);
        let y = Axis::fit("y", (0..20).map(f64::from), 5.0);
        let svg = scatter("t", &x, &y, &series);
        for i in 0..20 {
            assert!(svg.contains(&format!("(interp) #{i}\n")), "entry {i} whole");
        }
        let height: u32 = svg
            .split("height=\"")
            .nth(1)
            .and_then(|h| h.split('"').next())
            .and_then(|h| h.parse().ok())
            .expect("the chart's height");
        assert!(height > H, "the chart grows with its legend: {height}");
    }

    #[test]
    fn no_points_no_chart() {
        let x = Axis::fit("x", std::iter::empty(), 5.0);
        assert_eq!(scatter("t", &x, &x, &[Series::new("a", vec![])]), "");
        assert_eq!(lines("t", "x", "y", &[], false, false), "");
        assert_eq!(bars("t", &x, &[]), "");
    }

    #[test]
    fn bars_quantiles_and_log2_lines_draw() {
        let axis = Axis::fit("v", [1.0, 1000.0].into_iter(), 50.0);
        let svg = bars(
            "b",
            &axis,
            &[Bar {
                label: "bfs (jit)".into(),
                value: 500.0,
                dots: vec![1.0, 1000.0],
                color: 0,
            }],
        );
        assert_eq!(count(&svg, "class=\"pt\""), 1);
        let q = quantiles("q", "seconds", &[("dfs".into(), vec![0.5, 0.1, 2.0])]);
        assert_eq!(count(&q, "class=\"pt\""), 3);
        let l = lines(
            "l",
            "N",
            "p",
            &[("s".into(), vec![(1.0, 0.5), (8.0, 0.7)])],
            false,
            true,
        );
        assert_eq!(count(&l, "class=\"pt\""), 2);
        let a = Axis::log2("N", [3.0, 8.0].into_iter());
        assert_eq!((a.min, a.max), (2.0, 8.0));
    }
}
