import type { DatabaseEngine } from './engine.js';

export const mongodb = {
  name: 'mongodb',
  product: 'MongoDB',
  aliases: [],
  versions: ['7.0'],
  defaultVersion: '7.0',
  sizedBy: 'storage',
  port: 27017,
  recordedLocally: 'this version has no MongoDB client to create databases with',
} as const satisfies DatabaseEngine;
