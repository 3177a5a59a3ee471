import type { RequestHandler } from 'express';

/** API answers are per caller and often secret: never sniffed as another type, never cached. */
export const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Cache-Control', 'no-store');
  next();
};
