/**
 * A consumer group's lag over time, as the console draws it. The API answers the lag as it is now
 * (`GET …/consumer-groups/:group/lag`) and keeps no history, so the page samples it while open and
 * keeps the newest samples here.
 */

export interface LagSample {
  /** When the sample was read, in milliseconds since the epoch. */
  at: number;
  totalLag: number;
}

/** How many samples the chart keeps: at one every few seconds, the last few minutes. */
export const MAX_SAMPLES = 60;

/** `samples` with `sample` appended, the oldest dropped beyond `max`. */
export function withSample(samples: readonly LagSample[], sample: LagSample, max = MAX_SAMPLES): LagSample[] {
  const next = [...samples, sample];
  return next.length > max ? next.slice(next.length - max) : next;
}

/**
 * The polyline's points for `samples` in a `width` × `height` box: time left to right over the
 * span sampled, lag bottom to top from zero to the largest lag seen (a flat line at the bottom
 * when every sample is zero). A single sample is a flat line across.
 */
export function lagPoints(samples: readonly LagSample[], width: number, height: number): string {
  if (samples.length === 0) return '';
  const first = samples[0]!.at;
  const span = samples[samples.length - 1]!.at - first;
  const top = Math.max(0, ...samples.map((sample) => sample.totalLag));
  const y = (lag: number) => (top > 0 ? height - (lag / top) * height : height);
  if (samples.length === 1) return `0,${y(samples[0]!.totalLag)} ${width},${y(samples[0]!.totalLag)}`;
  return samples
    .map((sample) => {
      const x = span > 0 ? ((sample.at - first) / span) * width : 0;
      return `${round(x)},${round(y(sample.totalLag))}`;
    })
    .join(' ');
}

const round = (value: number) => Math.round(value * 10) / 10;
