import type { DatabaseEngine } from './engine.js';

export const postgresql = {
  name: 'postgresql',
  product: 'PostgreSQL',
  aliases: [],
  versions: ['14', '15', '16', '17'],
  defaultVersion: '15',
  sizedBy: 'storage',
  port: 5432,
} as const satisfies DatabaseEngine;
