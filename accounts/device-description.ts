const BROWSERS: readonly [RegExp, string][] = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bChrome\/|\bCriOS\/|\bChromium\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
  [/^Wget\//, 'Wget'],
  [/^(node|undici)\b/i, 'Node.js'],
  [/^python-requests\//, 'Python requests'],
  [/^Go-http-client\//, 'Go'],
  [/^cloudplane\b/i, 'cloudplane CLI'],
];

const SYSTEMS: readonly [RegExp, string][] = [
  [/\b(iPhone|iPad|iPod)\b/, 'iOS'],
  [/\bAndroid\b/, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bWindows\b/, 'Windows'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
];

function firstMatch(userAgent: string, table: readonly [RegExp, string][]): string | undefined {
  return table.find(([pattern]) => pattern.test(userAgent))?.[1];
}

/**
 * A short description of the device a session was opened from, such as "Firefox on Linux", read
 * from the User-Agent header. Good enough for a person to recognise their sessions; not a parser
 * of every browser there is.
 */
export function describeDevice(userAgent: string | undefined): string {
  const header = userAgent?.trim() ?? '';
  if (header === '') return 'Unknown device';
  const browser = firstMatch(header, BROWSERS);
  const system = firstMatch(header, SYSTEMS);
  if (browser && system) return `${browser} on ${system}`;
  return browser ?? (system ? `Unknown browser on ${system}` : 'Unknown device');
}
