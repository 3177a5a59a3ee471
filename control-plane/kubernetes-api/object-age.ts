/**
 * How long ago `since` was, in the compact form kubectl prints in its AGE column (`45s`, `5m3s`,
 * `3h12m`, `4d2h`, `2y30d`), or `<unknown>` without a timestamp.
 */
export function objectAge(since: string | undefined, now: Date): string {
  const start = since === undefined ? Number.NaN : Date.parse(since);
  if (Number.isNaN(start)) return '<unknown>';
  const seconds = Math.floor((now.getTime() - start) / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}
