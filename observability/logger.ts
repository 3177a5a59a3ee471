import { pino, type Logger, type LevelWithSilent } from 'pino';

export type { Logger };

/**
 * Field paths that may carry a credential anywhere in a log record. Redaction is the last line
 * of defence: code should not log these in the first place.
 */
const REDACTED_PATHS = [
  'password',
  'token',
  'secret',
  'authorization',
  '*.password',
  '*.token',
  '*.secret',
  '*.client_token',
  '*.refresh_token',
  '*.api_key',
  '*.authorization',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers["x-vault-token"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
];

/**
 * pino's ISO timestamp, formatted once per millisecond: a busy server logs several lines in one,
 * and formatting a date costs more than the rest of an access line's fields.
 */
function isoTimeOncePerMillisecond(): () => string {
  let formattedAt = -1;
  let formatted = '';
  return () => {
    const now = Date.now();
    if (now !== formattedAt) {
      formattedAt = now;
      formatted = `,"time":"${new Date(now).toISOString()}"`;
    }
    return formatted;
  };
}

export function createLogger(level: LevelWithSilent = 'info'): Logger {
  return pino({
    level,
    base: { service: 'cloudplane' },
    timestamp: isoTimeOncePerMillisecond(),
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  });
}
