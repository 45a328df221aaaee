#!/usr/bin/env python3
"""Opens a `dvemc bench report --html` page in headless Chromium, takes a
screenshot, and checks that it renders with data:

- from the DOM after the page's script ran (chromium --dump-dom): every
  chart (svg.plot) has points, every legend entry of every chart has at
  least one point inside the chart, the tables have rows, the filter
  script ran (it writes "N of N rows"), every paper section has a table
  and no rendering error; the headline table (fastest, least memory)
  comes first and has rows; memory is shown: the table of runs and the best
  runs have the columns bytes/state and store bytes (the runs with figures
  in them), and there is a chart of bytes per state;
- from the page laid out in Chromium (the report in a frame of a page that
  measures it): no text of a chart, legend labels included, is cut by the
  chart's edge or shortened with an ellipsis;
- from the screenshot (PNG, decoded here with the standard library): the
  page is not blank and the first series colour of the charts is drawn.

Usage: check_report.py REPORT.html [SCREENSHOT.png]. Exit 1 on a failed
check, 2 when Chromium is missing. Standard library only.
"""

import html
import html.parser
import json
import os
import shutil
import struct
import subprocess
import sys
import zlib

# plotters draws series 0 in this colour (harness/src/bench/plot.rs PALETTE).
FIRST_SERIES = (0x1F, 0x77, 0xB4)


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    print("check_report: Chromium not found (apt-get install chromium)", file=sys.stderr)
    sys.exit(2)


def run_chromium(exe, args, url):
    cmd = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", *args, url]
    p = subprocess.run(cmd, capture_output=True, timeout=300)
    if p.returncode != 0:
        sys.exit(f"check_report: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.decode()[-2000:]}")
    return p.stdout


class Dom(html.parser.HTMLParser):
    """Collects the charts, tables and sections of the report."""

    def __init__(self):
        super().__init__()
        self.plots = []  # [legend names, [(series, cx, cy)], width, height, section]
        self.tables = {}  # id -> rows
        self.table_stack = []
        self.section = None
        self.sections = {}  # id -> {"tables": n, "errors": n}
        self.counts = {}  # span id -> text
        self.span = None
        self.svg_depth = 0
        self.headers = {}  # table id -> header texts
        self.cells = {}  # table id -> rows of cell texts
        self.cell = None  # the text of the th or td being read

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "section":
            self.section = a.get("id")
            self.sections[self.section] = {"tables": 0, "errors": 0}
        if tag == "svg":
            self.svg_depth += 1
            if "plot" in a.get("class", "").split():
                legend = json.loads(a.get("data-legend", "[]"))
                w = float(a.get("width", "0"))
                h = float(a.get("height", "0"))
                self.plots.append([legend, [], w, h, self.section, []])
        if tag == "circle" and "pt" in a.get("class", "").split() and self.plots:
            self.plots[-1][1].append((a.get("data-series"), float(a["cx"]), float(a["cy"])))
        if tag == "table":
            tid = a.get("id") or f"{self.section}#{len(self.tables)}"
            self.tables[tid] = 0
            self.table_stack.append(tid)
            if self.section in self.sections:
                self.sections[self.section]["tables"] += 1
        if tag == "tr" and self.table_stack:
            self.tables[self.table_stack[-1]] += 1
            self.cells.setdefault(self.table_stack[-1], []).append([])
        if tag in ("th", "td") and self.table_stack:
            self.cell = ""
        if tag == "p" and "error" in a.get("class", "").split() and self.section in self.sections:
            self.sections[self.section]["errors"] += 1
        if tag == "span" and "count" in a.get("class", "").split():
            self.span = a.get("id")
            self.counts[self.span] = ""

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self.table_stack and self.cell is not None:
            tid = self.table_stack[-1]
            if tag == "th":
                self.headers.setdefault(tid, []).append(self.cell.strip())
            else:
                self.cells[tid][-1].append(self.cell.strip())
            self.cell = None
        if tag == "table" and self.table_stack:
            self.table_stack.pop()
        if tag == "span":
            self.span = None
        if tag == "svg":
            self.svg_depth -= 1

    def handle_data(self, data):
        if self.span:
            self.counts[self.span] += data
        if self.cell is not None:
            self.cell += data
        if self.svg_depth and self.plots:
            self.plots[-1][5].append(data.strip())


# Opens the report in a frame and lists the chart texts that reach past
# their chart's edge (every <details> opened, so that all are laid out).
MEASURE = """<!doctype html><html><body>
<iframe id="report" src="%s" style="width:1400px;height:3000px"></iframe>
<pre id="cut">not measured</pre>
<script>
document.getElementById('report').addEventListener('load', () => {
  const doc = document.getElementById('report').contentDocument;
  doc.querySelectorAll('details').forEach(d => { d.open = true; });
  const cut = [];
  doc.querySelectorAll('svg.plot').forEach(svg => {
    const box = svg.getBoundingClientRect();
    svg.querySelectorAll('text').forEach(t => {
      const b = t.getBoundingClientRect();
      const text = t.textContent.trim();
      if (text && (b.right > box.right + 0.5 || b.left < box.left - 0.5 ||
                   b.bottom > box.bottom + 0.5 || b.top < box.top - 0.5 || text.endsWith('\u2026')))
        cut.push(text);
    });
  });
  document.getElementById('cut').textContent = JSON.stringify(cut);
});
</script></body></html>
"""


def cut_texts(exe, report):
    """The chart texts Chromium lays out past their chart's edge."""
    page = os.path.join(os.path.dirname(report), ".check_report_measure.html")
    with open(page, "w") as f:
        f.write(MEASURE % os.path.basename(report))
    try:
        dom = run_chromium(
            exe, ["--allow-file-access-from-files", "--virtual-time-budget=10000", "--dump-dom"], "file://" + page
        ).decode()
    finally:
        os.remove(page)
    start = dom.find('<pre id="cut">')
    text = html.unescape(dom[start + len('<pre id="cut">') : dom.find("</pre>", start)]) if start >= 0 else ""
    try:
        return json.loads(text)
    except ValueError:
        sys.exit(f"check_report: the page measuring the charts did not run ({text[:200]!r})")


def number(text):
    try:
        float(text.replace("\u202f", "").replace(",", ""))
        return True
    except ValueError:
        return False


def png_pixels(path):
    """(width, height, rows of RGB(A) bytes) of an 8-bit non-interlaced PNG."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit(f"check_report: {path} is not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or color not in (2, 6) or interlace:
                sys.exit(f"check_report: unsupported PNG (depth {depth}, colour type {color})")
            bpp = 3 if color == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev, i = [], bytearray(stride), 0
    for _ in range(height):
        ftype, line = raw[i], bytearray(raw[i + 1 : i + 1 + stride])
        i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ftype == 1:
                line[x] = (line[x] + a) & 255
            elif ftype == 2:
                line[x] = (line[x] + b) & 255
            elif ftype == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + pred) & 255
        rows.append(line)
        prev = line
    return width, height, bpp, rows


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    report = os.path.abspath(sys.argv[1])
    if not os.path.isfile(report):
        sys.exit(f"check_report: {report}: no such file")
    shot = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(report), "report.png")
    exe = chromium()
    url = "file://" + report
    dom_text = run_chromium(exe, ["--virtual-time-budget=10000", "--dump-dom"], url).decode()
    run_chromium(exe, ["--window-size=1400,3000", f"--screenshot={os.path.abspath(shot)}"], url)

    failures = []
    dom = Dom()
    dom.feed(dom_text)
    if not dom.plots:
        failures.append("no chart (svg.plot) on the page")
    for legend, pts, w, h, section, _ in dom.plots:
        if not pts:
            failures.append(f"an empty chart in section {section} (legend {legend})")
        for name in legend:
            inside = [p for p in pts if p[0] == name and 0 <= p[1] <= w and 0 <= p[2] <= h]
            if not inside:
                failures.append(f"legend entry {name!r} has no point (section {section})")
    if dom.tables.get("t-headline", 0) < 2:
        failures.append("the headline table (fastest, least memory) has no row")
    elif not dom_text.find('id="headline"') < dom_text.find('id="overview"'):
        failures.append("the headline table is not at the top")
    if dom.tables.get("t-runs", 0) < 2:
        failures.append("the table of runs has no row")
    count = dom.counts.get("n-t-runs", "")
    if not count.endswith("rows"):
        failures.append(f"the filter script did not run (row count {count!r})")
    for table in ("t-runs", "t-best"):
        headers = dom.headers.get(table, [])
        for column in ("bytes/state", "store bytes"):
            if column not in headers:
                failures.append(f"table {table} has no column {column!r} (columns: {headers})")
            elif not any(number(r[headers.index(column)]) for r in dom.cells.get(table, []) if len(r) == len(headers)):
                failures.append(f"table {table}: no run has a figure in {column!r}")
    if not any("Bytes per stored state" in " ".join(p[5]) for p in dom.plots):
        failures.append("no chart of bytes per state")
    for text in cut_texts(exe, report):
        failures.append(f"a chart's text is cut: {text!r}")
    papers = [s for s in dom.sections if s and s.startswith("paper-")]
    for s in papers:
        if dom.sections[s]["errors"]:
            failures.append(f"{s}: its tables could not be rendered")
        elif not dom.sections[s]["tables"]:
            failures.append(f"{s}: no table")

    width, height, bpp, rows = png_pixels(shot)
    white = coloured = 0
    for row in rows:
        for x in range(0, width * bpp, bpp):
            r, g, b = row[x], row[x + 1], row[x + 2]
            if r > 245 and g > 245 and b > 245:
                white += 1
            elif abs(r - FIRST_SERIES[0]) < 24 and abs(g - FIRST_SERIES[1]) < 24 and abs(b - FIRST_SERIES[2]) < 24:
                coloured += 1
    total = width * height
    if white > 0.97 * total:
        failures.append(f"the screenshot is blank ({white} of {total} pixels white)")
    if coloured < 50:
        failures.append(f"the screenshot shows no point of the first series ({coloured} pixels of #1f77b4)")

    print(
        f"check_report: {len(dom.plots)} charts, {sum(len(p[1]) for p in dom.plots)} points, "
        f"{dom.tables.get('t-runs', 1) - 1} runs, papers: {', '.join(papers) or 'none'}; "
        f"screenshot {shot} ({width}x{height}, {100 * (total - white) / total:.0f} % drawn)"
    )
    for f in failures:
        print(f"check_report: FAIL: {f}", file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
