import type { DatabaseEngine } from './engine.js';

/** The `mysql` engine runs MariaDB, which a request may also name. */
export const mysql = {
  name: 'mysql',
  product: 'MariaDB',
  aliases: ['mariadb'],
  versions: ['10.11'],
  defaultVersion: '10.11',
  sizedBy: 'storage',
  port: 3306,
} as const satisfies DatabaseEngine;
