// uPlot, in its own chunk: only the endpoint page loads it.
import uPlot from 'uplot';

/** Draws the series over the x range `span` (seconds since the epoch), whatever points it has. */
export function drawChart(
  el: HTMLElement,
  label: string,
  [xs, ys]: [number[], (number | null)[]],
  span: [number, number],
): uPlot {
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const ink = dark ? '#d8dde3' : '#1d2329';
  const grid = dark ? '#3a424b' : '#e3e7eb';
  const axis = { stroke: ink, grid: { stroke: grid }, ticks: { stroke: grid } };
  return new uPlot(
    {
      width: Math.max(280, el.clientWidth),
      height: 220,
      title: undefined,
      scales: { x: { time: true, range: () => span } },
      legend: { show: true },
      axes: [axis, { ...axis, label: 'ms' }],
      series: [
        {},
        {
          label,
          stroke: '#2f7de1',
          width: 2,
          fill: 'rgba(47,125,225,0.12)',
          spanGaps: false,
          points: { show: xs.length < 60 },
        },
      ],
    },
    [xs, ys],
    el,
  );
}
