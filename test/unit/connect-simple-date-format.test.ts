import { describe, expect, it } from 'vitest';
import { simpleDateFormat } from '../../connect/transforms/simple-date-format.js';

const AT = Date.UTC(2024, 1, 9, 15, 4, 5, 67);

describe('SimpleDateFormat patterns, in UTC', () => {
  it.each([
    ['yyyyMMdd', '20240209'],
    ["yyyy-MM-dd'T'HH:mm:ss.SSSZ", '2024-02-09T15:04:05.067+0000'],
    ["yyyy-MM-dd'T'HH:mm:ss.SSSX", '2024-02-09T15:04:05.067Z'],
    ['dd MMM yy', '09 Feb 24'],
    ['EEEE d MMMM yyyy', 'Friday 9 February 2024'],
    ['hh:mm a', '03:04 PM'],
    ['D', '40'],
    ["'week' ''", "week '"],
  ])('formats %s as %s', (pattern, expected) => {
    expect(simpleDateFormat(pattern).format(AT)).toBe(expected);
  });

  it.each([
    ['yyyy-MM-dd HH:mm:ss.SSS', '2024-02-09 15:04:05.067', AT],
    ['yyyyMMddHHmm', '202402091504', Date.UTC(2024, 1, 9, 15, 4)],
    ["yyyy-MM-dd'T'HH:mm:ssXXX", '2024-02-09T17:04:05+02:00', Date.UTC(2024, 1, 9, 15, 4, 5)],
    ['dd MMM yyyy hh:mm a', '09 Feb 2024 03:04 PM', Date.UTC(2024, 1, 9, 15, 4)],
  ])('parses with %s: %s', (pattern, text, expected) => {
    expect(simpleDateFormat(pattern).parse(text)).toBe(expected);
  });

  it('refuses text that does not match, a letter Java does not know, and one it does that is not read here', () => {
    expect(() => simpleDateFormat('yyyy-MM-dd').parse('yesterday')).toThrow('Unparseable date: "yesterday"');
    expect(() => simpleDateFormat('yyyy-qq')).toThrow("Illegal pattern character 'q'");
    expect(() => simpleDateFormat('YYYY-ww')).toThrow("The pattern character 'Y' is not supported");
  });
});
