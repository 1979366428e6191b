/**
 * A small bar chart in SVG, one bar per day, with its numbers as a table beside it for screen
 * readers and anyone who prefers figures (the SVG itself is an image with a one-line summary).
 */
import { formatNumber } from '../../i18n/index.js';

export interface Bar {
  label: string;
  value: number;
}

export function BarChart(props: {
  id: string;
  title: string;
  summary: string;
  bars: Bar[];
  tableLabel: string;
  column: string;
  dayColumn: string;
}) {
  const { bars } = props;
  const max = Math.max(1, ...bars.map((b) => b.value));
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
      <svg viewBox={`0 0 ${width} ${height + 24}`} role="img" aria-label={props.summary}>
        <line x1="0" y1={height} x2={width} y2={height} class="axis" />
        {bars.map((b, i) => {
          const h = (b.value / max) * (height - 16);
          const x = i * (barWidth + gap);
          return (
            <g key={b.label}>
              <rect x={x} y={height - h} width={barWidth} height={h} rx="2" class="bar" />
              {b.value > 0 && bars.length <= 14 && (
                <text x={x + barWidth / 2} y={height - h - 4} text-anchor="middle" class="bar-value">
                  {formatNumber(b.value)}
                </text>
              )}
              {i % every === 0 && (
                <text x={x + barWidth / 2} y={height + 16} text-anchor="middle" class="bar-label">
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
              <th scope="col">{props.column}</th>
            </tr>
          </thead>
          <tbody>
            {bars.map((b) => (
              <tr key={b.label}>
                <th scope="row">{b.label}</th>
                <td>{formatNumber(b.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
