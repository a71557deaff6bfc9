// uPlot, in its own chunk: only the endpoint page loads it.
import uPlot from 'uplot';

/**
 * Response times (a line; null: no check passed there) with the failed checks of each point as red
 * bars on their own axis: a range where everything failed shows its failures, not an empty plot.
 */
export function drawRangeChart(
  el: HTMLElement,
  label: string,
  [xs, ms, fails]: [number[], (number | null)[], number[]],
  span: [number, number],
): uPlot {
  const dark = matchMedia('(prefers-color-scheme: dark)').matches;
  const ink = dark ? '#d8dde3' : '#1d2329';
  const grid = dark ? '#3a424b' : '#e3e7eb';
  const axis = { stroke: ink, grid: { stroke: grid }, ticks: { stroke: grid } };
  const most = Math.max(1, ...fails);
  return new uPlot(
    {
      width: Math.max(280, el.clientWidth),
      height: 240,
      scales: { x: { time: true, range: () => span }, n: { range: () => [0, most * 1.2] } },
      legend: { show: true },
      axes: [axis, { ...axis, label: 'ms' }, { ...axis, scale: 'n', side: 1, label: 'failed', grid: { show: false } }],
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
        {
          label: 'failed checks',
          scale: 'n',
          stroke: '#c62828',
          fill: 'rgba(198,40,40,0.55)',
          width: 1,
          paths: uPlot.paths.bars!({ size: [0.8, 12] }),
          points: { show: false },
        },
      ],
    },
    [xs, ms, fails],
    el,
  );
}
