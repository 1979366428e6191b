/**
 * A small bar chart in SVG, one bar per day (stacked when there are several series), with its
 * numbers as a table beside it for screen readers and anyone who prefers figures (the SVG itself
 * is an image with a one-line summary).
 */
import { formatNumber } from '../../i18n/index.js';

export interface Bar {
  label: string;
  /** One value per series, stacked bottom up in the series' order. */
  values: number[];
}

export interface Series {
  name: string;
  /** The class that colours its part of each bar and its key (analytics.css). */
  className: string;
}

export function BarChart(props: {
  id: string;
  title: string;
  summary: string;
  bars: Bar[];
  series: Series[];
  tableLabel: string;
  dayColumn: string;
  /** How values are written (default: whole numbers in the reader's language). */
  format?: (n: number) => string;
}) {
  const { bars, series } = props;
  const format = props.format ?? formatNumber;
  const sum = (b: Bar) => b.values.reduce((x, y) => x + y, 0);
  const max = Math.max(Number.MIN_VALUE, ...bars.map(sum));
  const width = 640;
  const height = 180;
  const gap = 4;
  const barWidth = (width - gap * (bars.length - 1)) / Math.max(1, bars.length);
  const every = Math.ceil(bars.length / 7); // at most about seven day labels under the bars
  return (
    <figure class="card chart" aria-labelledby={`${props.id}-title`}>
      <figcaption id={`${props.id}-title`} class="chart-title">
        {props.title}
      </figcaption>
      {series.length > 1 && (
        <ul class="legend" aria-hidden="true">
          {series.map((s) => (
            <li key={s.name}>
              <span class={`key ${s.className}`} />
              {s.name}
            </li>
          ))}
        </ul>
      )}
      <svg viewBox={`0 0 ${width} ${height + 24}`} role="img" aria-label={props.summary}>
        <line x1="0" y1={height} x2={width} y2={height} class="axis" />
        {bars.map((b, i) => {
          const x = i * (barWidth + gap);
          const total = sum(b);
          let base = height;
          return (
            <g key={b.label}>
              {b.values.map((v, j) => {
                const h = (v / max) * (height - 16);
                base -= h;
                return v > 0 ? (
                  <rect
                    key={j}
                    x={x}
                    y={base}
                    width={barWidth}
                    height={h}
                    rx="2"
                    class={`bar ${series[j].className}`}
                  />
                ) : null;
              })}
              {total > 0 && bars.length <= 14 && (
                <text x={x + barWidth / 2} y={base - 4} text-anchor="middle" class="bar-value">
                  {format(total)}
                </text>
              )}
              {i % every === 0 && (
                // The first label starts at the edge, so the chart does not cut it.
                <text
                  x={i === 0 ? x : x + barWidth / 2}
                  y={height + 16}
                  text-anchor={i === 0 ? 'start' : 'middle'}
                  class="bar-label"
                >
                  {b.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <details>
        <summary>{props.tableLabel}</summary>
        <table class="chart-table">
          <thead>
            <tr>
              <th scope="col">{props.dayColumn}</th>
              {series.map((s) => (
                <th scope="col" key={s.name}>
                  {s.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {bars.map((b) => (
              <tr key={b.label}>
                <th scope="row">{b.label}</th>
                {b.values.map((v, j) => (
                  <td key={j}>{format(v)}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
