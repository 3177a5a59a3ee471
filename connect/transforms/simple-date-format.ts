/**
 * Java's `SimpleDateFormat` patterns (`yyyy-MM-dd'T'HH:mm:ss.SSSZ`), in UTC as TimestampConverter
 * and TimestampRouter use them: the letters connector configurations use are formatted and parsed;
 * a letter Java knows but this does not (era, week-based fields) is refused rather than misread.
 */

type Token = { letter: string; count: number } | { text: string };

const JAVA_LETTERS = 'GyYMLwWDdFEuaHkKhmsSzZX';
const UNSUPPORTED = 'GYwWF';
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

export class DatePatternError extends Error {}

function tokensOf(pattern: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < pattern.length) {
    const char = pattern[index]!;
    if (char === "'") {
      const end = pattern.indexOf("'", index + 1);
      if (end === -1) throw new DatePatternError(`Unterminated quote in pattern ${pattern}`);
      tokens.push({ text: end === index + 1 ? "'" : pattern.slice(index + 1, end) });
      index = end + 1;
    } else if (/[A-Za-z]/.test(char)) {
      if (!JAVA_LETTERS.includes(char)) throw new DatePatternError(`Illegal pattern character '${char}'`);
      if (UNSUPPORTED.includes(char)) {
        throw new DatePatternError(`The pattern character '${char}' is not supported`);
      }
      let count = 1;
      while (pattern[index + count] === char) count += 1;
      tokens.push({ letter: char === 'L' ? 'M' : char, count });
      index += count;
    } else {
      tokens.push({ text: char });
      index += 1;
    }
  }
  return tokens;
}

const pad = (value: number, width: number) => String(value).padStart(width, '0');

function offsetText(letter: string, count: number): string {
  if (letter === 'X') return 'Z';
  if (letter === 'z') return count >= 4 ? 'Coordinated Universal Time' : 'UTC';
  return '+0000';
}

/** A compiled pattern: `format` a time, `parse` text (throws `DatePatternError` when it does not match). */
export interface DatePattern {
  format(ms: number): string;
  parse(text: string): number;
}

export function simpleDateFormat(pattern: string): DatePattern {
  const tokens = tokensOf(pattern);

  const format = (ms: number): string => {
    const date = new Date(ms);
    return tokens
      .map((token) => {
        if ('text' in token) return token.text;
        const { letter, count } = token;
        switch (letter) {
          case 'y':
            return count === 2 ? pad(date.getUTCFullYear() % 100, 2) : pad(date.getUTCFullYear(), count);
          case 'M':
            if (count >= 4) return MONTHS[date.getUTCMonth()]!;
            if (count === 3) return MONTHS[date.getUTCMonth()]!.slice(0, 3);
            return pad(date.getUTCMonth() + 1, count);
          case 'd':
            return pad(date.getUTCDate(), count);
          case 'D': {
            const start = Date.UTC(date.getUTCFullYear(), 0, 1);
            return pad(Math.floor((ms - start) / 86_400_000) + 1, count);
          }
          case 'E':
            return count >= 4 ? DAYS[date.getUTCDay()]! : DAYS[date.getUTCDay()]!.slice(0, 3);
          case 'u':
            return pad(date.getUTCDay() === 0 ? 7 : date.getUTCDay(), count);
          case 'a':
            return date.getUTCHours() < 12 ? 'AM' : 'PM';
          case 'H':
            return pad(date.getUTCHours(), count);
          case 'k':
            return pad(date.getUTCHours() === 0 ? 24 : date.getUTCHours(), count);
          case 'K':
            return pad(date.getUTCHours() % 12, count);
          case 'h':
            return pad(date.getUTCHours() % 12 === 0 ? 12 : date.getUTCHours() % 12, count);
          case 'm':
            return pad(date.getUTCMinutes(), count);
          case 's':
            return pad(date.getUTCSeconds(), count);
          case 'S':
            return pad(date.getUTCMilliseconds(), count);
          default:
            return offsetText(letter, count);
        }
      })
      .join('');
  };

  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const numeric = (count: number, next: Token | undefined) =>
    next && 'letter' in next && !'MEaz'.includes(next.letter) ? `(\\d{${count}})` : `(\\d{${count},})`;
  const parts = tokens.map((token, index) => {
    if ('text' in token) return escape(token.text);
    const { letter, count } = token;
    if (letter === 'M' && count >= 3) return `([A-Za-z]+)`;
    if (letter === 'E') return `([A-Za-z]+)`;
    if (letter === 'a') return `(AM|PM|am|pm)`;
    if (letter === 'Z' || letter === 'X') return `(Z|[+-]\\d{2}:?\\d{2}|[+-]\\d{2})`;
    if (letter === 'z') return `([A-Za-z ]+|[+-]\\d{2}:?\\d{2})`;
    return numeric(count, tokens[index + 1]);
  });
  const matcher = new RegExp(`^${parts.join('')}`);

  const parse = (text: string): number => {
    const match = matcher.exec(text);
    if (!match) throw new DatePatternError(`Unparseable date: "${text}"`);
    let year = 1970;
    let month = 0;
    let day = 1;
    let dayOfYear: number | undefined;
    let hour = 0;
    let pm: boolean | undefined;
    let minute = 0;
    let second = 0;
    let millis = 0;
    let offsetMinutes = 0;
    let group = 1;
    for (const token of tokens) {
      if ('text' in token) continue;
      const value = match[group++]!;
      const number = Number(value);
      switch (token.letter) {
        case 'y':
          year = token.count === 2 && value.length === 2 ? 2000 + number : number;
          break;
        case 'M':
          month =
            token.count >= 3
              ? MONTHS.findIndex((name) => name.toLowerCase().startsWith(value.toLowerCase().slice(0, 3)))
              : number - 1;
          if (month < 0) throw new DatePatternError(`Unparseable date: "${text}"`);
          break;
        case 'd':
          day = number;
          break;
        case 'D':
          dayOfYear = number;
          break;
        case 'a':
          pm = value.toUpperCase() === 'PM';
          break;
        case 'H':
        case 'k':
          hour = number % 24;
          break;
        case 'K':
        case 'h':
          hour = number % 12;
          break;
        case 'm':
          minute = number;
          break;
        case 's':
          second = number;
          break;
        case 'S':
          millis = number;
          break;
        case 'Z':
        case 'X':
        case 'z': {
          const offset = /^([+-])(\d{2}):?(\d{2})?$/.exec(value);
          if (offset) {
            offsetMinutes =
              (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3] ?? '0'));
          }
          break;
        }
        default:
          break;
      }
    }
    if (pm !== undefined && pm) hour += 12;
    const base =
      dayOfYear !== undefined
        ? Date.UTC(year, 0, dayOfYear, hour, minute, second, millis)
        : Date.UTC(year, month, day, hour, minute, second, millis);
    return base - offsetMinutes * 60_000;
  };

  return { format, parse };
}
