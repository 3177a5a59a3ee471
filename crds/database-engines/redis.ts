import type { DatabaseEngine } from './engine.js';

/** Sized by memory (`maxmemory`), not storage. */
export const redis = {
  name: 'redis',
  product: 'Redis',
  aliases: [],
  versions: ['7'],
  defaultVersion: '7',
  sizedBy: 'memory',
  port: 6379,
} as const satisfies DatabaseEngine;
