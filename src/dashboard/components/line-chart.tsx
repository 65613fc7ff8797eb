/** One point of a series: the bucket's start time and its value. */
export interface Point {
  time: string;
  value: number;
}

const WIDTH = 600;
const HEIGHT = 160;
const PAD = { left: 4, right: 4, top: 8, bottom: 4 };

/**
 * A small SVG area chart of one series over time, with its peak and time span as labels; its
 * accessible name summarises the series (total, peak, number of buckets).
 */
export function LineChart({ title, points, format, summary }: { title: string; points: Point[]; format: (value: number) => string; summary: string }) {
  const peak = Math.max(0, ...points.map((point) => point.value));
  const innerWidth = WIDTH - PAD.left - PAD.right;
  const innerHeight = HEIGHT - PAD.top - PAD.bottom;
  // One interval is drawn as a level across the chart (a lone point would be hard to see).
  const drawn = points.length === 1 ? [points[0]!, points[0]!] : points;
  const x = (index: number) => PAD.left + (index / Math.max(1, drawn.length - 1)) * innerWidth;
  const y = (value: number) => PAD.top + innerHeight - (peak === 0 ? 0 : (value / peak) * innerHeight);
  const line = drawn.map((point, index) => `${x(index).toFixed(1)},${y(point.value).toFixed(1)}`).join(" ");
  const base = PAD.top + innerHeight;
  const area = points.length > 0 ? `${x(0).toFixed(1)},${base} ${line} ${x(drawn.length - 1).toFixed(1)},${base}` : "";
  const label = `${title}: ${summary}; peak ${format(peak)} over ${points.length} ${points.length === 1 ? "interval" : "intervals"}`;
  const first = points[0]?.time;
  const last = points.at(-1)?.time;
  return (
    <figure class="chart">
      <figcaption>
        <span class="chart-title">{title}</span>
        <span class="chart-summary">{summary}</span>
      </figcaption>
      {points.length === 0 ? <p class="chart-empty">No data in this period</p> : null}
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={label} preserveAspectRatio="none">
        <line class="axis" x1={PAD.left} x2={WIDTH - PAD.right} y1={base} y2={base} />
        {points.length === 0 ? null : (
          <>
            <polygon class="area" points={area} />
            <polyline class="line" points={line} />
          </>
        )}
      </svg>
      <div class="chart-axis" aria-hidden="true">
        <span>{first ? shortTime(first) : ""}</span>
        <span>peak {format(peak)}</span>
        <span>{last && last !== first ? shortTime(last) : ""}</span>
      </div>
    </figure>
  );
}

function shortTime(value: string): string {
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString(undefined, { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit" });
}
